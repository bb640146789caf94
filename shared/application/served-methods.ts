/**
 * What a merchant can really be paid with in a mode: in live mode only the method kinds a configured provider
 * serves (discovery, the session's available_methods and the hosted page never offer a method that would
 * answer METHOD_NOT_AVAILABLE); test mode has the simulator for every kind.
 */
import type { Merchant } from '../domain/merchant';
import { kindsOfCode } from '../domain/payments/methods';
import type { PaymentMethod } from '../domain/payments/payment';
import type { Connectors } from './connectors';
import type { PaymentDeps } from './payment-deps';

function servedKinds(c: Connectors | null): Set<PaymentMethod> {
  const kinds = new Set<PaymentMethod>();
  if (!c) return kinds;
  if (c.pix) kinds.add('pix');
  if (c.card || c.heldCard) kinds.add('card');
  if (c.wallet) kinds.add('wallet');
  if (c.speiDeposits) kinds.add('spei');
  if (c.heldVoucher) kinds.add('cash');
  if (c.voucher) for (const k of ['boleto', 'cash', 'cip', 'spei', 'bank_transfer'] as const) kinds.add(k);
  return kinds;
}

export async function servedMerchant(deps: Pick<PaymentDeps, 'connectors'>, merchant: Merchant, livemode: boolean): Promise<Merchant> {
  if (!livemode) return merchant;
  const kinds = servedKinds(await deps.connectors.forMode(true));
  return { ...merchant, methods: merchant.methods.filter((code) => kindsOfCode(code).some((k) => kinds.has(k))) };
}
