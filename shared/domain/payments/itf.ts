/**
 * Interleaved 2 of 5 (ITF), the symbology of FEBRABAN boleto barcodes: digit pairs,
 * the first in the bars and the second in the spaces, each digit five elements of
 * which two are wide (3:1), between a start (narrow bar, space, bar, space) and a
 * stop (wide bar, narrow space, narrow bar).
 */
const PATTERNS = ['00110', '10001', '01001', '11000', '00101', '10100', '01100', '00011', '10010', '01010'] as const;
const WIDE = 3;
const QUIET = 10;

/**
 * Element widths in narrow modules (1 narrow, 3 wide), alternating bar, space, bar, ... from the start
 * pattern to the stop; the first and last elements are bars. Quiet zones are not included.
 * Throws RangeError unless `digits` is a non-empty, even-length string of 0-9.
 */
export function itf25Widths(digits: string): number[] {
  if (typeof digits !== 'string' || !/^(\d\d)+$/.test(digits)) throw new RangeError('ITF needs a non-empty even number of digits');
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
const positiveInt = (v: number, name: string) => {
  if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer`);
  return v;
};

export interface Itf25SvgOptions {
  /** Bar height in SVG units (default 100). */
  height?: number;
  /** Narrow module width in SVG units (default 2); wide elements are 3 of them. */
  narrow?: number;
  /** Accessible name (aria-label), escaped here; default 'Barcode'. */
  label?: string;
}

/**
 * A standalone SVG of the barcode: one <rect> per bar (integer x, width, height) inside a black <g>, no
 * background, a quiet zone of 10 narrow modules on each side, role="img" and an escaped aria-label.
 * Throws RangeError like itf25Widths, or when height or narrow is not a positive integer.
 */
export function itf25Svg(digits: string, opts: Itf25SvgOptions = {}): string {
  const narrow = positiveInt(opts.narrow ?? 2, 'narrow');
  const height = positiveInt(opts.height ?? 100, 'height');
  const widths = itf25Widths(digits);
  let x = QUIET * narrow;
  const rects: string[] = [];
  widths.forEach((w, i) => {
    if (i % 2 === 0) rects.push(`<rect x="${x}" y="0" width="${w * narrow}" height="${height}"/>`);
    x += w * narrow;
  });
  const total = x + QUIET * narrow;
  const label = escAttr(opts.label ?? 'Barcode');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${total} ${height}" preserveAspectRatio="none"`;
  return `${svg} role="img" aria-label="${label}"><g fill="#000">${rects.join('')}</g></svg>`;
}
