/**
 * Live refunds of payments a provider holds (a received Pix goes back as a devolução): the refund is
 * committed pending with its provider id first (createRefund), then the settlement worker sends it, or reads
 * it back when it was sent already; pending stays pending (the settlement resume job asks again), a final
 * answer settles it. Callbacks that report a refund's final state settle it the same way, read back first.
 */
import { AppError } from '../domain/errors';
import type { Payment } from '../domain/payments/payment';
import type { Refund } from '../domain/refunds/refund';
import type { PixRefundConnector, ProviderRefundState } from './connectors';
import { ProviderUnavailable } from './connectors';
import type { PaymentDeps } from './payment-deps';
import { applyRefundDecision, type RefundDecision } from './refunds';

/** The provider that returns a live payment's money, or METHOD_NOT_AVAILABLE (what createRefund checks before committing). */
export async function liveRefundConnector(deps: PaymentDeps, payment: Payment): Promise<PixRefundConnector> {
  const refunds = (await deps.connectors.forMode(true))?.pixRefunds;
  if (
    payment.payment_method !== 'pix' ||
    !refunds ||
    payment.provider?.name !== refunds.provider.name ||
    !payment.provider.details.end_to_end_id
  ) {
    throw new AppError(
      'METHOD_NOT_AVAILABLE',
      `Live refunds of ${payment.payment_method} payments are not available with the configured providers.`,
    );
  }
  return refunds;
}

const decisionOf = (state: ProviderRefundState): RefundDecision =>
  state.kind === 'pending' ? { to: 'pending' } : state.kind === 'succeeded' ? { to: 'succeeded' } : { to: 'failed', reason: state.reason };

/**
 * The provider's answer for a pending live refund: read back (it may have been sent before a crash), sent when
 * the provider has never seen it. An unreachable provider leaves it pending for the next attempt.
 */
export async function liveRefundDecision(deps: PaymentDeps, refund: Refund): Promise<RefundDecision> {
  const payment = await deps.store.getPayment(refund.payment_id);
  if (!payment) throw new Error(`refund ${refund.refund_id} has no payment ${refund.payment_id}`);
  try {
    const connector = await liveRefundConnector(deps, payment);
    const endToEndId = payment.provider?.details.end_to_end_id as string;
    const known = await connector.get({ endToEndId, refundId: refund.refund_id });
    const state =
      known ??
      (await connector.send({
        endToEndId,
        refundId: refund.refund_id,
        amountMinor: refund.amount_minor,
        description: `Refund ${refund.refund_id}`,
      }));
    return decisionOf(state);
  } catch (e) {
    if (e instanceof ProviderUnavailable) return { to: 'pending' };
    throw e;
  }
}

/**
 * A callback named this Pix: any of the payment's pending refunds the provider reports final (read back from
 * the provider, never from the callback body) is settled. Answers how many were.
 */
export async function settleRefundsReported(deps: PaymentDeps, payment: Payment, endToEndId: string): Promise<number> {
  if (payment.provider?.details.end_to_end_id !== endToEndId) return 0;
  const pending = (await deps.refunds.listByPayment(payment.payment_id)).filter((r) => r.status === 'pending' && r.livemode);
  let settled = 0;
  for (const refund of pending) {
    const decision = await liveRefundDecision(deps, refund);
    if (decision.to === 'pending') continue;
    await applyRefundDecision(deps, refund.refund_id, decision);
    settled++;
  }
  return settled;
}
