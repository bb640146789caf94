/**
 * A card provider's chargeback notices on a route of their own (dLocal's: its chargebacks are not told on the
 * payment's notification). The signature is verified over the raw body before anything of it is read (a forged one
 * is UNAUTHORIZED and moves nothing); a verified one only names the chargeback, which is read back from the provider
 * and applied through the same dispute machinery as Adyen's notices (card-disputes.ts, dispute.ts):
 * - the notification log is keyed by the chargeback id and the status READ BACK, so a repeated notice, or a stale one
 *   read back as a status already applied, moves nothing; and dispute.ts's stages settle the money once whatever
 *   the order (a reversal before its chargeback writes both movements);
 * - the chargeback applies only to a live card payment of that provider, at the attempt that dLocal paid: our
 *   payment from the chargeback's order, and its stored psp_reference equal to the chargeback's payment id;
 *   anything else is `unknown` (answered 200: nothing of ours to move);
 * - another currency, an amount outside the payment's, or a second chargeback on a payment whose dispute is another
 *   chargeback's, is `mismatch`: recorded in the log, paged, never applied.
 */
import { AppError } from '../../domain/errors';
import { cardRailOf, ProviderUnavailable, type CardChargeback, type RequestHeaders } from '../providers';
import type { PaymentDeps } from '../ports';
import { applyDisputeNotice } from './card-disputes';
import type { DisputeOutcome } from './disputes';

export type ChargebackOutcome = DisputeOutcome | 'ignored';

/** The idempotency key of one effect: the chargeback and the status read back. */
export const chargebackKey = (c: Pick<CardChargeback, 'chargebackId' | 'status'>) => `chargeback:${c.chargebackId}:${c.status}`;

async function applyChargeback(deps: PaymentDeps, provider: string, c: CardChargeback): Promise<ChargebackOutcome> {
  if (!c.signal) return 'ignored';
  const payment = c.paymentId ? await deps.store.getPayment(c.paymentId) : null;
  if (
    !payment ||
    !payment.livemode ||
    payment.payment_method !== 'card' ||
    payment.provider?.name !== provider ||
    payment.provider.details.psp_reference !== c.providerPaymentId
  )
    return 'unknown';
  if (payment.dispute && payment.dispute.provider_reference !== c.chargebackId) return 'mismatch';
  return applyDisputeNotice(
    deps,
    {
      dispute: { signal: c.signal, reasonCode: c.reasonCode },
      currency: c.currency,
      amountMinor: c.amountMinor,
      pspReference: c.chargebackId,
    },
    payment,
  );
}

/** One chargeback notice: its outcome, and the status read back (for the log line). */
export async function receiveCardChargeback(
  deps: PaymentDeps,
  provider: string,
  headers: RequestHeaders,
  rawBody: string,
): Promise<{ readonly outcome: ChargebackOutcome; readonly status: string | null }> {
  const chargebacks = cardRailOf(await deps.connectors.forMode(true), provider)?.chargebacks;
  if (!chargebacks || chargebacks.provider !== provider) throw new AppError('NOT_FOUND');
  const parsed = chargebacks.parse(headers, rawBody);
  if (parsed && 'forged' in parsed) throw new AppError('UNAUTHORIZED', 'The notification signature does not verify.');
  if (!parsed) throw new AppError('VALIDATION_ERROR', "The body is not the provider's chargeback shape.");
  let c: CardChargeback | null;
  try {
    c = await parsed.readBack();
  } catch (e) {
    // The read-back did not answer: nothing moved; a 502 makes the provider send it again.
    if (e instanceof ProviderUnavailable)
      throw new AppError('PROVIDER_UNAVAILABLE', 'The provider did not answer the read-back; send the notification again.');
    throw e;
  }
  if (!c) return { outcome: 'unknown', status: null };
  const log = deps.notificationLog;
  const key = chargebackKey(c);
  const at = () => deps.clock.now().toISOString();
  const record = {
    chargeback_id: c.chargebackId,
    provider_payment_id: c.providerPaymentId,
    payment_id: c.paymentId,
    status: c.status,
    amount_minor: c.amountMinor,
    currency: c.currency,
  };
  if (log && (await log.begin(provider, key, record, at())) === 'done') return { outcome: 'duplicate', status: c.status };
  const outcome = await applyChargeback(deps, provider, c);
  // A deferred notice stays unfinished in the log: the provider's redelivery applies it.
  if (log && outcome !== 'deferred') await log.finish(provider, key, outcome, at());
  return { outcome, status: c.status };
}
