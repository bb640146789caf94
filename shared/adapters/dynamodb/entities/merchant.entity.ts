/** Merchant profile and its webhook secrets (a separate item: profile reads never carry the secret). */
import type { WebhookSecrets } from '../../../application/ports';
import type { Merchant } from '../../../domain/merchant';
import { envelope, type EntityModel } from '../keys';

const merchantModel = { entity: 'merchant', version: 1 } as const;
const merchantKey = (merchantId: string) => ({ PK: `MERCHANT#${merchantId}`, SK: 'PROFILE' });

export const merchantEntity = {
  ...merchantModel,
  key: merchantKey,
  item: (m: Merchant) => ({ ...merchantKey(m.merchant_id), ...envelope(merchantModel), ...m }),
} as const satisfies EntityModel;

const secretModel = { entity: 'webhook_secret', version: 1 } as const;
const secretKey = (merchantId: string) => ({ PK: `MERCHANT#${merchantId}`, SK: 'WEBHOOK_SECRET' });

export const webhookSecretEntity = {
  ...secretModel,
  key: secretKey,
  item: (merchantId: string, s: WebhookSecrets) => ({ ...secretKey(merchantId), ...envelope(secretModel), ...s }),
} as const satisfies EntityModel;
