/**
 * What a merchant can really be paid with in a mode: in live mode only the method kinds a configured provider
 * serves (discovery, the session's available_methods and the hosted page never offer a method that would
 * answer METHOD_NOT_AVAILABLE); test mode has the simulator for every kind.
 */
import type { Merchant } from '../domain/merchant';
import type { CountryCode } from '../domain/geo';
import { placesOfCode } from '../domain/payments/methods';
import type { PaymentMethod } from '../domain/payments/payment';
import type { Connectors } from './connectors';
import type { PaymentDeps } from './payment-deps';

/** Whether a live provider collects this kind in this country (a held voucher says which countries it serves). */
function serves(c: Connectors, kind: PaymentMethod, country: CountryCode): boolean {
  switch (kind) {
    case 'pix':
      return Boolean(c.pix);
    case 'card':
      return Boolean(c.card || c.heldCard);
    case 'wallet':
      return Boolean(c.wallet);
    case 'spei':
      return Boolean(c.speiDeposits || c.voucher);
    case 'cash':
    case 'boleto':
      return Boolean(c.voucher || c.heldVoucher?.serves(kind, country));
    default:
      return Boolean(c.voucher);
  }
}

export async function servedMerchant(deps: Pick<PaymentDeps, 'connectors'>, merchant: Merchant, livemode: boolean): Promise<Merchant> {
  if (!livemode) return merchant;
  const c = await deps.connectors.forMode(true);
  const served = (code: string) => Boolean(c) && placesOfCode(code).some((p) => serves(c!, p.kind, p.country));
  return { ...merchant, methods: merchant.methods.filter(served) };
}
