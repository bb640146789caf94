/**
 * QR images of payment codes (PIX BR Code, DESIGN.md 6) as PNG. The QR symbol comes from the
 * `qrcode` package's encoder; the image is written here as an 8-bit grayscale PNG with node:zlib,
 * because the package's own PNG renderer bundles a whole PNG codec (pngjs: ~35 KB of every bundle
 * that shows a QR). Same look as before: error correction M, 2-module quiet zone, 4 px per module.
 */
import { crc32, deflateSync } from 'node:zlib';
import { create } from 'qrcode/lib/core/qrcode.js';
import type { QrCodes } from '../application/ports';

const MARGIN = 2;
const SCALE = 4;
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(typed.length + 8);
  out.writeUInt32BE(data.length, 0);
  typed.copy(out, 4);
  out.writeUInt32BE(crc32(typed), typed.length + 4);
  return out;
}

/** The PNG bytes of the QR code of `text`: dark modules black, the rest white. */
export function qrPngSync(text: string): Buffer {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const n = modules.size;
  const side = (n + 2 * MARGIN) * SCALE;
  const stride = side + 1; // each scanline starts with its filter byte (0: none)
  const pixels = Buffer.alloc(stride * side, 0xff);
  for (let y = 0; y < side; y++) {
    pixels[y * stride] = 0;
    const row = Math.floor(y / SCALE) - MARGIN;
    if (row < 0 || row >= n) continue;
    for (let x = 0; x < side; x++) {
      const col = Math.floor(x / SCALE) - MARGIN;
      if (col >= 0 && col < n && modules.data[row * n + col]) pixels[y * stride + 1 + x] = 0;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // grayscale; compression, filter and interlace methods stay 0
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}

/** The PNG bytes of the QR code of `text`. */
export const qrPng = async (text: string): Promise<Buffer> => qrPngSync(text);

/** 'data:image/png;base64,...' of the QR code of `text`. */
export const qrPngDataUri = async (text: string): Promise<string> => `data:image/png;base64,${qrPngSync(text).toString('base64')}`;

/** The QrCodes port, for the composition root. */
export const qrCodes: QrCodes = { pngDataUri: qrPngDataUri, png: qrPng };
