/**
 * A card provider's notifications (issue 23): every item's signature is verified by the connector before any of
 * it is read; a verified item's effect is committed (a conditional transition, so a duplicate or a replay of the
 * same pspReference and event finds the payment already moved and changes nothing) before the provider is
 * answered. AUTHORISATION settles an open payment (success true -> success with its credit, false -> failed);
 * a cancellation closes one still open. Other events are acknowledged and counted (refunds, chargebacks: later).
 */
import { AppError } from '../domain/errors';
import { awaitsProvider, type Payment } from '../domain/payments/payment';
import type { CardNotification } from './connectors';
import type { PaymentDeps } from './payment-deps';
import { applyCardOutcome } from './held-card';
import { transition } from './payments';
import { applyRefundDecision } from './refunds';

export interface NotificationResult extends Record<string, number> {
  applied: number;
  duplicate: number;
  forged: number;
  unknown: number;
  ignored: number;
}

async function applyOne(deps: PaymentDeps, n: CardNotification, payment: Payment): Promise<keyof NotificationResult> {
  if (n.event === 'authorisation') {
    if (!awaitsProvider(payment)) return 'duplicate';
    if (n.success && n.amountMinor !== payment.amount_minor) return 'ignored'; // never settled on another amount
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
  if (n.event === 'cancellation' && n.success) {
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
  return 'ignored';
}

export async function receiveCardNotifications(deps: PaymentDeps, readBody: () => unknown): Promise<NotificationResult> {
  const notifications = (await deps.connectors.forMode(true))?.cardNotifications;
  if (!notifications) throw new AppError('NOT_FOUND');
  const parsed = notifications.parse(readBody());
  if (!parsed) throw new AppError('VALIDATION_ERROR', "The body is not the provider's notification shape.");
  const result: NotificationResult = { applied: 0, duplicate: 0, forged: parsed.forged, unknown: 0, ignored: 0 };
  for (const n of parsed.items) {
    if (n.event === 'refund' || n.event === 'refund_failed') {
      const outcome = await applyRefundNotification(deps, n, notifications.provider);
      result[outcome] = (result[outcome] ?? 0) + 1;
      continue;
    }
    const payment = n.paymentId ? await deps.store.getPayment(n.paymentId) : null;
    if (!payment || !payment.livemode || payment.provider?.name !== notifications.provider) {
      result.unknown++;
      continue;
    }
    const outcome = await applyOne(deps, n, payment);
    result[outcome] = (result[outcome] ?? 0) + 1;
  }
  return result;
}

/** REFUND success true settles our refund succeeded; REFUND success false or REFUND_FAILED settles it failed. Once. */
async function applyRefundNotification(deps: PaymentDeps, n: CardNotification, provider: string): Promise<keyof NotificationResult> {
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
