/**
 * Interleaved 2 of 5 (ITF), the symbology of FEBRABAN boleto barcodes: digit pairs,
 * the first in the bars and the second in the spaces, each digit five elements of
 * which two are wide (3:1), between a start (narrow bar, space, bar, space) and a
 * stop (wide bar, narrow space, narrow bar).
 */
const PATTERNS = ['00110', '10001', '01001', '11000', '00101', '10100', '01100', '00011', '10010', '01010'] as const;
const WIDE = 3;
const QUIET = 10;

/** Element widths in narrow modules, alternating bar, space, bar, ... from the start pattern to the stop. */
export function itf25Widths(digits: string): number[] {
  if (!/^\d*$/.test(digits) || digits.length === 0 || digits.length % 2 !== 0) throw new RangeError('ITF needs a non-empty even number of digits');
  const widths = [1, 1, 1, 1];
  for (let i = 0; i < digits.length; i += 2) {
    const bars = PATTERNS[Number(digits[i])]!;
    const spaces = PATTERNS[Number(digits[i + 1])]!;
    for (let k = 0; k < 5; k++) widths.push(bars[k] === '1' ? WIDE : 1, spaces[k] === '1' ? WIDE : 1);
  }
  widths.push(WIDE, 1, 1);
  return widths;
}

const escAttr = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A standalone SVG of the barcode: one <rect> per bar, quiet zones of 10 modules, an accessible label. */
export function itf25Svg(digits: string, opts: { height?: number; narrow?: number; label?: string } = {}): string {
  const narrow = opts.narrow ?? 2;
  const height = opts.height ?? 100;
  const widths = itf25Widths(digits);
  let x = QUIET * narrow;
  const rects: string[] = [];
  widths.forEach((w, i) => {
    if (i % 2 === 0) rects.push(`<rect x="${x}" y="0" width="${w * narrow}" height="${height}"/>`);
    x += w * narrow;
  });
  const total = x + QUIET * narrow;
  const label = escAttr(opts.label ?? 'Barcode');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${total} ${height}" preserveAspectRatio="none" role="img" aria-label="${label}" data-digits="${digits}"><rect x="0" y="0" width="${total}" height="${height}" fill="#fff"/><g fill="#000">${rects.join('')}</g></svg>`;
}
