/**
 * A provider's own id of one of our orders (STP's order `id`), pointing at our payout: written once, before the
 * payout records that id, so a callback that names the order only by the provider's id (STP's estado callback
 * carries `folioOrigen` empty for an order registered without one) still finds its payout. Never rewritten:
 * a second payout claiming the same provider id is refused by the condition.
 */
import { envelope, type EntityModel } from '../keys';

export const providerOrderEntity = {
  entity: 'provider_order',
  version: 1,
  key: (provider: string, orderId: string) => ({ PK: `PROVIDER_ORDER#${provider}#${orderId}`, SK: 'PROVIDER_ORDER' }),
  item: (provider: string, orderId: string, payoutId: string, now: string) => ({
    ...providerOrderEntity.key(provider, orderId),
    ...envelope(providerOrderEntity),
    provider,
    order_id: orderId,
    payout_id: payoutId,
    created_at: now,
  }),
} as const satisfies EntityModel;
