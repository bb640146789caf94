/** QR images of payment codes (PIX BR Code, DESIGN.md 6) as PNG, with the `qrcode` package. */
import QRCode from 'qrcode';
import type { QrCodes } from '../application/payment-ports';

const OPTIONS = { errorCorrectionLevel: 'M', margin: 2 } as const;

/** 'data:image/png;base64,...' of the QR code of `text`. */
export const qrPngDataUri = (text: string): Promise<string> => QRCode.toDataURL(text, { ...OPTIONS, type: 'image/png' });

/** The PNG bytes of the QR code of `text`. */
export const qrPng = (text: string): Promise<Buffer> => QRCode.toBuffer(text, { ...OPTIONS, type: 'png' });

/** The QrCodes port, for the composition root. */
export const qrCodes: QrCodes = { pngDataUri: qrPngDataUri, png: qrPng };
