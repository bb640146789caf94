/** The fake Adyen's error answer (ServiceError) and its pspReferences (16 letters or digits). */
import { randomBytes } from 'node:crypto';

export class AdyenError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    readonly errorType: string,
    message: string,
  ) {
    super(message);
  }
  body() {
    return { status: this.status, errorCode: this.errorCode, errorType: this.errorType, message: this.message };
  }
}

export const pspRef = () => randomBytes(8).toString('hex').toUpperCase().slice(0, 16);
