/** API key, found by the SHA-256 of the presented key (one GetItem per authentication), listed per merchant on GSI1. */
import type { ApiKey } from '../../../domain/merchant';
import { envelope, type EntityModel } from '../keys';

const model = { entity: 'api_key', version: 1 } as const;
const key = (hash: string) => ({ PK: `APIKEY#${hash}`, SK: 'APIKEY' });
/** Listing index: a merchant's keys, by key id. */
const ofMerchant = (merchantId: string, keyId?: string) => ({
  GSI1PK: `MERCHANT#${merchantId}#APIKEYS`,
  ...(keyId ? { GSI1SK: keyId } : {}),
});

export const apiKeyEntity = {
  ...model,
  key,
  ofMerchant,
  /** The stored key: its metadata under the hash; the key itself is never written. */
  item: (k: ApiKey, hash: string) => ({ ...key(hash), ...ofMerchant(k.merchant_id, k.key_id), ...envelope(model), ...k }),
} as const satisfies EntityModel;
