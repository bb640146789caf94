/**
 * The exact STP order a payout keeps for a resend, sealed: it holds the beneficiary's full CLABE and CURP/RFC,
 * which are stored only masked anywhere else. AES-256-GCM under a key derived with HKDF-SHA256 from the
 * configured STP private key (its PKCS#8 DER, so the PEM's encryption or passphrase does not change it) and
 * the fixed info `latam-payments/stp/order-seal/v1`; the order's claveRastreo is the additional data, so a
 * sealed order cannot be moved to another payout. Sealed text: `v1.<key id>.<base64url(iv | ciphertext | tag)>`,
 * the key id being the first 8 hex digits of SHA-256 of the key (which key sealed it, never the key itself).
 * Unsealing gives back the very JSON that was sealed, so a resend is byte-identical. A new private key cannot
 * open orders sealed under the old one: the runbook says to rotate it only with no payout's registration
 * unresolved (an order already registered is only read back by claveRastreo, which needs no sealed order).
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

const INFO = 'latam-payments/stp/order-seal/v1';
const VERSION = 'v1';

export class SealedOrderError extends Error {
  constructor(reason: string) {
    super(`The sealed STP order could not be opened (${reason})`);
    this.name = 'SealedOrderError';
  }
}

export interface OrderSealer {
  seal(plain: string, claveRastreo: string): string;
  open(sealed: string, claveRastreo: string): string;
}

/** The sealer of the configured private key (the same key every container derives). */
export function orderSealer(privateKey: KeyObject): OrderSealer {
  return sealerOf(privateKey.export({ type: 'pkcs8', format: 'der' }), INFO);
}

/**
 * The sealer of a configured secret (a provider without a private key of ours: dLocal's client secret), under
 * its own info so no two providers' seals open each other's. Same format and rules as orderSealer.
 */
export function secretSealer(secret: string, info: string): OrderSealer {
  return sealerOf(Buffer.from(secret, 'utf8'), info);
}

function sealerOf(material: Buffer, info: string): OrderSealer {
  const key = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), info, 32));
  const kid = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return {
    seal(plain, claveRastreo) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      c.setAAD(Buffer.from(claveRastreo, 'utf8'));
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return `${VERSION}.${kid}.${Buffer.concat([iv, body, c.getAuthTag()]).toString('base64url')}`;
    },
    open(sealed, claveRastreo) {
      const [v, id, data] = sealed.split('.');
      if (v !== VERSION || !data) throw new SealedOrderError('not a sealed order');
      if (id !== kid) throw new SealedOrderError('sealed under another key');
      const raw = Buffer.from(data, 'base64url');
      if (raw.length < 12 + 16 + 1) throw new SealedOrderError('too short');
      const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      d.setAAD(Buffer.from(claveRastreo, 'utf8'));
      d.setAuthTag(raw.subarray(raw.length - 16));
      try {
        return Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8');
      } catch {
        throw new SealedOrderError('not authentic');
      }
    },
  };
}
