/**
 * A local provider's notifications (issue 32): the signature is verified over the raw body before anything of it
 * is read (a forged one is UNAUTHORIZED and moves nothing); a verified one only names the payment, which is then
 * read back from the provider and applied (held-local.ts): the status the body claims is never taken, so a
 * duplicate or an out-of-order copy changes nothing, and a different amount is recorded and alarmed, not settled.
 * A refund's notification settles the payment's pending refunds the same way, each read back first. A notification
 * naming one of the provider's PIX charges (its PIX rail's reference) is read back and applied as PIX.
 */
import { AppError } from '../../domain/errors';
import { awaitsProvider, type Payment } from '../../domain/payments/payment';
import {
  cardRailOf,
  type HeldLocalPaymentConnector,
  type LocalNotification,
  localRailOf,
  ProviderUnavailable,
  type RequestHeaders,
} from '../providers';
import { settlePendingRefunds } from '../refunds';
import type { PaymentDeps } from '../ports';
import { applyCardNotice } from './held-card';
import { reconcileHeldLocal } from './held-local';
import type { HeldOutcome } from './held-types';
import { receivePixNotification } from './pix-reconcile';

/**
 * What one notification did: a held outcome of its read-back, or why it moved nothing. `late`: the provider holds
 * paid a payment already closed here (expired, failed, cancelled): money collected and not settled, alarmed.
 */
export type LocalNotificationOutcome = HeldOutcome | 'duplicate' | 'unknown' | 'ignored' | 'late' | 'refund_settled';

/** A notification of a payment closed here: a duplicate, unless the provider holds paid what we closed unpaid. */
async function closedOutcome(local: HeldLocalPaymentConnector, payment: Payment): Promise<LocalNotificationOutcome> {
  if (payment.status === 'success' || payment.status === 'refunded') return 'duplicate';
  const known = payment.provider?.details.provider_payment_id;
  const state = known ? await local.getByProviderId(known) : await local.get(payment.payment_id);
  return 'outcome' in state && state.outcome.kind === 'paid' ? 'late' : 'duplicate';
}

/**
 * A refund's notification: the payment it names (by our refund's reference, or the payment's order) has its pending
 * refunds read back and settled when final (refunds-live.ts); nothing is taken from the body.
 */
async function refundNotification(
  deps: PaymentDeps,
  provider: string,
  n: Extract<LocalNotification, { kind: 'refund' }>,
): Promise<LocalNotificationOutcome> {
  const refund = n.refundId ? await deps.refunds.get(n.refundId) : null;
  const paymentId = refund?.payment_id ?? n.paymentId;
  const payment = paymentId ? await deps.store.getPayment(paymentId) : null;
  if (!payment || !payment.livemode || payment.provider?.name !== provider) return 'unknown';
  // The provider's id of the payment: a local payment's, or a card's (its psp_reference).
  const providerPaymentId = payment.provider.details.provider_payment_id ?? payment.provider.details.psp_reference;
  if (providerPaymentId !== n.providerPaymentId) return 'unknown';
  return (await settlePendingRefunds(deps, payment)) > 0 ? 'refund_settled' : 'duplicate';
}

export async function receiveLocalNotification(
  deps: PaymentDeps,
  provider: string,
  headers: RequestHeaders,
  rawBody: string,
): Promise<{ readonly outcome: LocalNotificationOutcome; readonly claimed: string | null }> {
  const connectors = await deps.connectors.forMode(true);
  const rail = localRailOf(connectors, provider);
  const notifications = rail?.notifications;
  const local = rail?.payments;
  if (!notifications || !local || notifications.provider !== provider) throw new AppError('NOT_FOUND');
  const parsed = await notifications.parse(headers, rawBody);
  if (parsed && 'forged' in parsed) throw new AppError('UNAUTHORIZED', 'The notification signature does not verify.');
  if (!parsed) throw new AppError('VALIDATION_ERROR', "The body is not the provider's notification shape.");
  const n = parsed.item;
  if (n.kind === 'refund') return { outcome: await refundNotification(deps, local.provider.name, n), claimed: n.claimed };
  try {
    // A PIX charge the provider holds as one of its PIX rail's: read back and applied as PIX (pix-reconcile.ts).
    if (n.kind === 'pix')
      return { outcome: await receivePixNotification(deps, local.provider.name, n, deps.clock.now()), claimed: n.claimed };
    const payment = n.paymentId ? await deps.store.getPayment(n.paymentId) : null;
    // A card attempt's order (a card rail of the same provider): read back by that attempt's reference.
    const card = n.cardReference && payment?.payment_method === 'card' ? cardRailOf(connectors, provider) : null;
    if (!payment || !payment.livemode || (!card && payment.provider?.name !== local.provider.name))
      return { outcome: 'unknown', claimed: n.claimed };
    if (card) return { outcome: await applyCardNotice(deps, card, payment, n.cardReference as string), claimed: n.claimed };
    if (!awaitsProvider(payment)) return { outcome: await closedOutcome(local, payment), claimed: n.claimed };
    return { outcome: await reconcileHeldLocal(deps, local, payment.payment_id, deps.clock.now()), claimed: n.claimed };
  } catch (e) {
    // The read-back did not answer: nothing moved; a 502 makes the provider send it again (and the job reads it back).
    if (e instanceof ProviderUnavailable)
      throw new AppError('PROVIDER_UNAVAILABLE', 'The provider did not answer the read-back; send the notification again.');
    throw e;
  }
}
