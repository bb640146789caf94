/**
 * A card provider's notifications (issue 23): every item's signature is verified by the connector before any of
 * it is read. Each verified item is recorded in the notification log (idempotent by the provider's key: Adyen's
 * pspReference + eventCode) before its effect, and its outcome after; the provider is answered once all of that is
 * committed. AUTHORISATION settles an open payment (success true -> success with its credit, false -> failed; on
 * another amount it is recorded as a mismatch, never settled); a cancellation closes one still open; REFUND /
 * REFUND_FAILED settle refunds; dispute notices move the payment's dispute (card-disputes.ts).
 */
import { AppError } from '../../domain/errors';
import { awaitsProvider, type Payment } from '../../domain/payments/payment';
import { applyDisputeNotice } from './card-disputes';
import { type CardNotification, cardRailOf } from '../providers';
import type { PaymentDeps } from '../ports';
import { applyCardOutcome } from './held-card';
import { recordMismatch } from './held-pix';
import { transition } from '../payments';
import { applyRefundDecision } from '../refunds';

export interface NotificationResult extends Record<string, number> {
  applied: number;
  duplicate: number;
  forged: number;
  unknown: number;
  ignored: number;
  /** Another amount or currency than ours: recorded on the payment, never settled (alarmed). */
  mismatch: number;
  /** Not applicable yet (a dispute of a payment whose own outcome has not arrived): answered so the provider resends. */
  deferred: number;
}

type Outcome = Exclude<keyof NotificationResult, number>;

async function applyAuthorisation(deps: PaymentDeps, n: CardNotification, payment: Payment): Promise<Outcome> {
  if (!awaitsProvider(payment)) return 'duplicate';
  if (n.success && (n.amountMinor !== payment.amount_minor || n.currency !== payment.currency)) {
    await recordMismatch(deps, payment, n.amountMinor, n.pspReference);
    return 'mismatch';
  }
  const after = await applyCardOutcome(
    deps,
    payment,
    n.success
      ? { kind: 'approved', authorizationCode: n.authorizationCode ?? n.pspReference, pspReference: n.pspReference }
      : {
          kind: 'declined',
          code: n.decline?.code ?? 'CARD_DECLINED',
          message: n.decline?.message ?? 'The card was declined.',
          providerCode: `notification_${n.eventCode.toLowerCase()}`,
          pspReference: n.pspReference,
        },
    payment.status === 'pending_3ds' ? 'pending_3ds' : 'processing',
  );
  return after.status === payment.status ? 'duplicate' : 'applied';
}

async function applyCancellation(deps: PaymentDeps, payment: Payment): Promise<Outcome> {
  if (!awaitsProvider(payment)) return 'duplicate';
  try {
    await transition(deps, payment, 'failed', {
      failure_code: 'PROVIDER_UNAVAILABLE',
      failure_message: 'The payment was cancelled at the card provider; nothing was collected.',
      expires_at: null,
    });
    return 'applied';
  } catch (e) {
    if (e instanceof AppError && e.code === 'PAYMENT_STATE_CONFLICT') return 'duplicate';
    throw e;
  }
}

/** REFUND success true settles our refund succeeded; REFUND success false or REFUND_FAILED settles it failed. Once. */
async function applyRefundNotification(deps: PaymentDeps, n: CardNotification, provider: string): Promise<Outcome> {
  const refund = n.refundId ? await deps.refunds.get(n.refundId) : null;
  if (!refund || !refund.livemode || refund.provider?.name !== provider) return 'unknown';
  if (refund.status !== 'pending') return 'duplicate';
  const ok = n.event === 'refund' && n.success;
  const after = await applyRefundDecision(
    deps,
    refund.refund_id,
    ok ? { to: 'succeeded' } : { to: 'failed', reason: 'declined_by_provider' },
  );
  return after && after.status !== 'pending' ? 'applied' : 'duplicate';
}

async function applyOne(deps: PaymentDeps, n: CardNotification, provider: string): Promise<Outcome> {
  if (n.event === 'refund' || n.event === 'refund_failed') return applyRefundNotification(deps, n, provider);
  const payment = n.paymentId ? await deps.store.getPayment(n.paymentId) : null;
  if (!payment || !payment.livemode || payment.provider?.name !== provider) return 'unknown';
  // An abandoned attempt's outcome (another reference of the payment's) is its watch's, never the payment's.
  const another = n.reference !== undefined && n.reference !== payment.provider.reference;
  if (another && (n.event === 'authorisation' || n.event === 'cancellation')) return 'ignored';
  if (n.event === 'authorisation') return applyAuthorisation(deps, n, payment);
  if (n.event === 'cancellation' && n.success) return applyCancellation(deps, payment);
  if (n.event === 'dispute' && n.dispute) return applyDisputeNotice(deps, n, payment);
  return 'ignored';
}

/** One card provider's notification route: its items applied to the payments and refunds that provider holds. */
export async function receiveCardNotifications(
  deps: PaymentDeps,
  provider: string,
  readBody: () => unknown,
  /** Items about a card mandate's approval (they name no payment): applied by the mandates' use case. */
  mandates?: (n: CardNotification) => Promise<'applied' | 'ignored'>,
): Promise<NotificationResult> {
  const notifications = cardRailOf(await deps.connectors.forMode(true), provider)?.notifications;
  if (!notifications || notifications.provider !== provider) throw new AppError('NOT_FOUND');
  const parsed = notifications.parse(readBody());
  if (!parsed) throw new AppError('VALIDATION_ERROR', "The body is not the provider's notification shape.");
  const result: NotificationResult = { applied: 0, duplicate: 0, forged: parsed.forged, unknown: 0, ignored: 0, mismatch: 0, deferred: 0 };
  const log = deps.notificationLog;
  for (const n of parsed.items) {
    const at = () => deps.clock.now().toISOString();
    if (log && (await log.begin(provider, n.key, n.record, at())) === 'done') {
      result.duplicate++;
      continue;
    }
    const outcome = n.mandateId && mandates ? await mandates(n) : await applyOne(deps, n, provider);
    result[outcome] = (result[outcome] ?? 0) + 1;
    // A deferred item stays unfinished in the log: the provider's redelivery applies it.
    if (log && outcome !== 'deferred') await log.finish(provider, n.key, outcome, at());
  }
  return result;
}
