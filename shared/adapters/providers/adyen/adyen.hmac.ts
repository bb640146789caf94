/**
 * Notification HMAC (Adyen's standard notifications): each item carries additionalData.hmacSignature, base64
 * HMAC-SHA256 with our hex key over pspReference:originalReference:merchantAccountCode:merchantReference:
 * value:currency:eventCode:success. Computed and compared (constant time) by Adyen's own library, imported as
 * its single validator module (the package has no exports map; the module needs only node:crypto and a
 * constant), so the bundle carries none of the rest of the SDK.
 */
import * as validatorModule from '@adyen/api-library/lib/src/utils/hmacValidator';
import type { NotificationItem } from './adyen.schemas';

type Validator = {
  validateHMAC(item: unknown, key: string): boolean;
  calculateHmac(item: unknown, key: string): string;
};
type ValidatorClass = new () => Validator;

/** The CommonJS module's default export, whichever way the loader (esbuild, swc, node) wrapped it. */
function validatorClass(): ValidatorClass {
  const m = validatorModule as unknown as { default?: ValidatorClass | { default?: ValidatorClass } };
  const d = m.default;
  if (typeof d === 'function') return d;
  if (d && typeof d.default === 'function') return d.default;
  throw new Error('@adyen/api-library HmacValidator not found');
}

let validator: Validator | null = null;
const instance = () => (validator ??= new (validatorClass())());

/** The item's signature is Adyen's for this key. A missing or malformed signature is false, never an exception. */
export function hmacValid(item: NotificationItem, hmacKeyHex: string): boolean {
  if (!item.additionalData?.hmacSignature) return false;
  try {
    return instance().validateHMAC(item, hmacKeyHex);
  } catch {
    return false;
  }
}

/** The signature Adyen would put on this item (the fake Adyen signs with it). */
export function hmacOf(item: Omit<NotificationItem, 'additionalData'>, hmacKeyHex: string): string {
  return instance().calculateHmac(item, hmacKeyHex);
}
