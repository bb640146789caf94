/**
 * What a merchant can really be paid with in a mode: in live mode only the method kinds a configured provider
 * serves (discovery, the session's available_methods and the hosted page never offer a method that would
 * answer METHOD_NOT_AVAILABLE); test mode has the simulator for every kind.
 */
import type { Merchant } from '../../domain/merchant';
import type { CountryCode } from '../../domain/geo';
import { paidOnRedirect, placesOfCode } from '../../domain/payments/methods';
import type { PaymentMethod } from '../../domain/payments/payment';
import { WALLET_CHOICE_CODE, WALLET_CHOICES, type WalletChoice } from '../../domain/payments/methods';
import { localRails, type Connectors } from '../providers';
import { heldServes } from '../rails';
import type { PaymentDeps } from '../ports';

/** Whether a connector collects this kind in this country: one a provider holds (the held-strategy table), or a direct one. */
function serves(c: Connectors, kind: PaymentMethod, country: CountryCode, routing?: Merchant['routing']): boolean {
  if (heldServes(c, kind, country, routing)) return true;
  if (paidOnRedirect(kind)) return Boolean(c.wallet);
  switch (kind) {
    case 'pix':
      return Boolean(c.pix);
    case 'card':
      return Boolean(c.card);
    case 'crypto':
      return Boolean(c.crypto);
    default:
      return Boolean(c.voucher);
  }
}

/** A merchant as a mode serves it: the codes it can be paid with, and the wallets its wallet method offers by name. */
export type ServedMerchant = Merchant & { readonly wallets: readonly WalletChoice[] };

export async function servedMerchant(
  deps: Pick<PaymentDeps, 'connectors'>,
  merchant: Merchant,
  livemode: boolean,
): Promise<ServedMerchant> {
  if (!livemode) return { ...merchant, wallets: WALLET_CHOICES };
  const c = await deps.connectors.forMode(true);
  const served = (code: string) => Boolean(c) && placesOfCode(code).some((p) => serves(c!, p.kind, p.country, merchant.routing));
  const wallets = (c ? localRails(c) : []).flatMap((r) => r.payments.walletsOf?.(WALLET_CHOICE_CODE, 'BRA') ?? []);
  return { ...merchant, methods: merchant.methods.filter(served), wallets };
}
