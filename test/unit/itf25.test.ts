/**
 * Interleaved 2 of 5: the SVG is read back by an independent decoder (rect x/width → bar and space
 * widths → narrow/wide → digits) written here from the symbology, not from shared/domain/payments/itf.ts.
 */
import { itf25Svg, itf25Widths } from '../../shared/domain/payments/itf';
import { barcodeDv } from '../../shared/domain/payments/boleto';

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The SVG's attributes we rely on, and every <rect> with its integer geometry. */
function parseSvg(svg: string) {
  const open = /^<svg ([^>]*)>/.exec(svg);
  if (!open) throw new Error('not an <svg> element');
  const attrs = Object.fromEntries([...open[1]!.matchAll(/([\w:-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
  const rects: Rect[] = [...svg.matchAll(/<rect ([^>]*)\/>/g)].map((m) => {
    const a = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((p) => [p[1]!, p[2]!]));
    for (const k of ['x', 'y', 'width', 'height']) if (!/^\d+$/.test(a[k] ?? '')) throw new Error(`rect ${k}="${a[k]}" is not an integer`);
    return { x: Number(a.x), y: Number(a.y), width: Number(a.width), height: Number(a.height) };
  });
  const [minX, minY, vw, vh] = (attrs.viewBox ?? '').split(' ').map(Number);
  return { attrs, rects, viewBox: { minX: minX!, minY: minY!, width: vw!, height: vh! } };
}

const DIGIT: Record<string, string> = {
  NNWWN: '0',
  WNNNW: '1',
  NWNNW: '2',
  WWNNN: '3',
  NNWNW: '4',
  WNWNN: '5',
  NWWNN: '6',
  NNNWW: '7',
  WNNWN: '8',
  NWNWN: '9',
};

/** Decodes ITF from bars: checks start (n bar, n space, n bar, n space) and stop (W bar, n space, n bar). */
function decode(rects: Rect[]): { digits: string; narrow: number; quietLeft: number; quietRight: (total: number) => number } {
  const sorted = [...rects].sort((a, b) => a.x - b.x);
  const narrow = Math.min(...sorted.map((r) => r.width));
  const kind = (w: number) => {
    if (w === narrow) return 'N';
    if (w === 3 * narrow) return 'W';
    throw new Error(`width ${w} is neither narrow (${narrow}) nor wide (${3 * narrow})`);
  };
  // Alternating element widths: bar, space, bar, ...
  const elements: string[] = [];
  sorted.forEach((r, i) => {
    if (i > 0) {
      const prev = sorted[i - 1]!;
      elements.push(kind(r.x - (prev.x + prev.width)));
    }
    elements.push(kind(r.width));
  });
  const joined = elements.join('');
  if (!joined.startsWith('NNNN')) throw new Error('no start pattern');
  if (!joined.endsWith('WNN')) throw new Error('no stop pattern');
  const body = joined.slice(4, -3);
  if (body.length % 10 !== 0) throw new Error('body is not whole digit pairs');
  let digits = '';
  for (let i = 0; i < body.length; i += 10) {
    const pair = body.slice(i, i + 10);
    const bars = [0, 2, 4, 6, 8].map((k) => pair[k]).join('');
    const spaces = [1, 3, 5, 7, 9].map((k) => pair[k]).join('');
    if (!(bars in DIGIT) || !(spaces in DIGIT)) throw new Error(`bad pair ${pair}`);
    digits += DIGIT[bars]! + DIGIT[spaces]!;
  }
  const last = sorted[sorted.length - 1]!;
  return { digits, narrow, quietLeft: sorted[0]!.x, quietRight: (total) => total - (last.x + last.width) };
}

let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const randomDigits = (n: number) => Array.from({ length: n }, () => String(Math.floor(rand() * 10))).join('');

describe('itf25Svg', () => {
  it('round-trips 200 random 44-digit strings through the SVG', () => {
    for (let i = 0; i < 200; i++) {
      const digits = randomDigits(44);
      const svg = itf25Svg(digits);
      const { rects, viewBox } = parseSvg(svg);
      expect(rects).toHaveLength(2 + 22 * 5 + 2);
      const d = decode(rects);
      expect(d.digits).toBe(digits);
      expect(d.quietLeft).toBe(10 * d.narrow);
      expect(d.quietRight(viewBox.width)).toBe(10 * d.narrow);
      for (const r of rects) expect([r.y, r.height]).toEqual([0, viewBox.height]);
    }
  });

  it('round-trips boleto barcodes, other even lengths, and honours narrow and height', () => {
    const head = '2379';
    const rest = randomDigits(39);
    const barcode = head + barcodeDv(head + rest) + rest;
    for (const [digits, narrow, height] of [
      [barcode, 1, 50],
      ['00', 3, 40],
      ['1234567890', 4, 120],
      [randomDigits(100), 2, 80],
    ] as const) {
      const { rects, viewBox } = parseSvg(itf25Svg(digits, { narrow, height }));
      const d = decode(rects);
      expect(d).toMatchObject({ digits, narrow });
      // Quiet zones (2 × 10), start (4), 9 modules a digit (2 wide × 3 + 3 narrow), stop (5).
      expect(viewBox).toEqual({ minX: 0, minY: 0, width: (20 + 4 + digits.length * 9 + 5) * narrow, height });
    }
  });

  it('has exactly one rect per bar: 2 start, 5 per digit pair, 2 stop; no background', () => {
    for (const digits of ['00', '0123', randomDigits(44)]) {
      const { rects } = parseSvg(itf25Svg(digits));
      expect(rects).toHaveLength(2 + (digits.length / 2) * 5 + 2);
    }
  });

  it('starts with narrow bar, narrow space, narrow bar, narrow space and stops with wide bar, narrow space, narrow bar', () => {
    const w = itf25Widths('44');
    expect(w.slice(0, 4)).toEqual([1, 1, 1, 1]);
    expect(w.slice(-3)).toEqual([3, 1, 1]);
    expect(w).toHaveLength(4 + 10 + 3);
    // Known pair "12": 1 in bars WNNNW, 2 in spaces NWNNW, interleaved.
    expect(itf25Widths('12').slice(4, 14)).toEqual([3, 1, 1, 3, 1, 1, 1, 1, 3, 3]);
    const { rects } = parseSvg(itf25Svg('12', { narrow: 2 }));
    expect(rects.slice(0, 2)).toEqual([
      { x: 20, y: 0, width: 2, height: 100 },
      { x: 24, y: 0, width: 2, height: 100 },
    ]);
    expect(rects.slice(-2).map((r) => r.width)).toEqual([6, 2]);
  });

  it('is a standalone, labelled image', () => {
    const svg = itf25Svg('1234', { label: 'Código de barras' });
    const { attrs } = parseSvg(svg);
    expect(attrs).toMatchObject({ xmlns: 'http://www.w3.org/2000/svg', role: 'img', 'aria-label': 'Código de barras' });
    expect(svg.endsWith('</svg>')).toBe(true);
    expect(parseSvg(itf25Svg('1234')).attrs['aria-label']).toBe('Barcode');
  });

  it('escapes the label', () => {
    const svg = itf25Svg('1234', { label: `"><script>alert('x')</script> & co` });
    expect(svg).not.toContain('<script');
    expect(svg).not.toMatch(/aria-label="[^"]*"[^ >]/);
    const label = parseSvg(svg).attrs['aria-label']!;
    expect(label).not.toMatch(/[<>"']/);
    const unescaped = label.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
    expect(unescaped).toBe(`"><script>alert('x')</script> & co`);
    expect(svg.match(/<svg /g)).toHaveLength(1);
  });

  it('throws RangeError for odd lengths, non-digits, empty input and bad sizes', () => {
    for (const bad of ['1', '123', '', '12a4', '12 4', '１２', '-1', '1.', '٣٤']) {
      expect(() => itf25Svg(bad)).toThrow(RangeError);
      expect(() => itf25Widths(bad)).toThrow(RangeError);
    }
    expect(() => itf25Svg('12', { narrow: 0 })).toThrow(RangeError);
    expect(() => itf25Svg('12', { narrow: 1.5 })).toThrow(RangeError);
    expect(() => itf25Svg('12', { height: -1 })).toThrow(RangeError);
  });
});
