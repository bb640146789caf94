/**
 * Which method a checkout payment uses (DESIGN.md 9.1): the process request names a kind (`payment_method`) and may
 * name one of the session's offered codes (`method_code`) and, for Brazil's wallets, one wallet (`wallet`). Two codes
 * may share a kind in one country (Colombia's bank transfers: Bre-B and PSE), so without `method_code` a kind resolves
 * to its own code when the session can be paid with it, else to an offered code of that SPEC payment type: never to
 * one that answers METHOD_NOT_AVAILABLE while another is payable. A bad `method_code` or `wallet` is a 400 naming the
 * field, before anything is written or sent.
 */
import { AppError } from '../../domain/errors';
import { methodCodeFor, WALLET_CHOICE_CODE, type AvailableMethod } from '../../domain/payments/methods';
import type { PaymentMethod } from '../../domain/payments/payment';
import type { WalletChoice } from '../providers';

export interface MethodChoice {
  readonly kind: PaymentMethod;
  /** The method code when the session offers it; else null (initiatePayment answers METHOD_NOT_AVAILABLE as before). */
  readonly code: string | null;
  readonly wallet?: WalletChoice;
}

const invalid = (field: string, message: string): AppError =>
  new AppError('VALIDATION_ERROR', `Invalid request parameters: ${field} ${message}.`, { details: [{ field, message }] });

/**
 * `offered`: the session's enabled methods as the shopper sees them (live: only those a configured provider serves),
 * with the wallets a wallet method serves.
 */
export function chooseMethod(
  req: { readonly paymentMethod: PaymentMethod; readonly methodCode?: string; readonly wallet?: WalletChoice },
  country: Parameters<typeof methodCodeFor>[1],
  offered: readonly AvailableMethod[],
): MethodChoice {
  let chosen: AvailableMethod | undefined;
  if (req.methodCode !== undefined) {
    chosen = offered.find((m) => m.method_code === req.methodCode);
    if (!chosen) {
      const codes = [...new Set(offered.map((m) => m.method_code))].join(', ');
      throw invalid('method_code', `must be one of the codes this session offers (${codes || 'none'})`);
    }
    if (chosen.id !== req.paymentMethod && chosen.type !== req.paymentMethod)
      throw invalid('method_code', `is a ${chosen.type} method, not ${req.paymentMethod}`);
  } else {
    const own = methodCodeFor(req.paymentMethod, country);
    chosen =
      offered.find((m) => m.id === req.paymentMethod && m.method_code === own) ??
      offered.find((m) => m.id === req.paymentMethod) ??
      offered.find((m) => m.type === req.paymentMethod);
  }
  if (req.wallet !== undefined) {
    const wallets = chosen?.method_code === WALLET_CHOICE_CODE ? (chosen.wallets ?? []) : [];
    if (!wallets.includes(req.wallet))
      throw invalid(
        'wallet',
        wallets.length
          ? `must be one of the wallets this session offers (${wallets.join(', ')})`
          : 'is not offered for this payment method',
      );
  }
  if (!chosen) return { kind: req.paymentMethod, code: null };
  // The wallet is part of the payment's intent: without a choice, the first the session offers, so a retry (or a
  // later change of the wallets served) never sends the provider another wallet for this payment.
  const wallet = req.wallet ?? (chosen.method_code === WALLET_CHOICE_CODE ? chosen.wallets?.[0] : undefined);
  return { kind: chosen.id, code: chosen.method_code, ...(wallet ? { wallet: wallet as WalletChoice } : {}) };
}
