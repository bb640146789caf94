/** The encoder module of the `qrcode` package (no types ship for it): the QR symbol without a renderer. */
declare module 'qrcode/lib/core/qrcode.js' {
  export interface QrSymbol {
    readonly modules: { readonly size: number; readonly data: Uint8Array };
    readonly version: number;
  }
  export function create(text: string, options?: { errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H' }): QrSymbol;
}
