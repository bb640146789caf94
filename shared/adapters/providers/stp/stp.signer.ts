/**
 * The `firma` of STP's signed calls: RSA PKCS#1 v1.5 over SHA-256 of the cadena original (UTF-8), base64.
 * The private key (PKCS#8 or PKCS#1 PEM, optionally encrypted with a passphrase) is loaded once; neither it
 * nor its passphrase appears in an error or a log line.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { orderSealer, type OrderSealer } from './stp.sealer';

export interface StpSigner {
  sign(cadena: string): string;
  /** The public half, for a check of our own configuration (providers check) and for the fake STP. */
  readonly publicKey: KeyObject;
  /** Seals the orders payouts keep (a key derived from this private key: stp.sealer.ts). */
  readonly sealer: OrderSealer;
}

export class StpKeyError extends Error {
  constructor() {
    super('The STP private key could not be loaded (is private_key_passphrase the key’s passphrase?)');
    this.name = 'StpKeyError';
  }
}

export function stpSigner(privateKeyPem: string, passphrase?: string): StpSigner {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: privateKeyPem, format: 'pem', ...(passphrase ? { passphrase } : {}) });
  } catch {
    throw new StpKeyError();
  }
  if (key.asymmetricKeyType !== 'rsa') throw new StpKeyError();
  return {
    sign: (cadena) => sign('sha256', Buffer.from(cadena, 'utf8'), key).toString('base64'),
    publicKey: createPublicKey(key),
    sealer: orderSealer(key),
  };
}

/** Whether `firma` is the signature of `cadena` by the key whose public half is given. */
export function firmaMatches(publicKey: KeyObject | string, cadena: string, firma: string): boolean {
  try {
    return verify('sha256', Buffer.from(cadena, 'utf8'), publicKey, Buffer.from(firma, 'base64'));
  } catch {
    return false;
  }
}
