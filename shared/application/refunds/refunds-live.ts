/**
 * Live refunds of payments a provider holds (a received Pix goes back as a devolução): the refund is
 * committed pending with its provider id first (createRefund), then the settlement worker sends it, or reads
 * it back when it was sent already; pending stays pending (the settlement resume job asks again), a final
 * answer settles it. Callbacks that report a refund's final state settle it the same way, read back first.
 */
import { AppError } from '../../domain/errors';
import type { Payment } from '../../domain/payments/payment';
import type { Refund } from '../../domain/refunds/refund';
import {
  cardRailOf,
  type Connectors,
  pixRailOf,
  heldLocalPaths,
  type LocalRefundConnector,
  localRailOf,
  type ProviderRefundState,
  ProviderRejected,
  ProviderUnavailable,
  readsBackRefunds,
} from '../providers';
import type { PaymentDeps } from '../ports';
import { applyRefundDecision, type RefundDecision } from './refund-decision';

/** How a live payment's money goes back: the provider and our refund's reference there, and the provider's state of a refund. */
export interface LiveRefundRoute {
  readonly provider: { readonly name: string; reference(refundId: string): string };
  /** Read back (when the provider can) or sent; the provider's state of this refund. */
  state(refund: Refund): Promise<ProviderRefundState>;
  /**
   * Read back only (a provider whose send is not idempotent): what a notification's settlement uses, so that it
   * never sends a refund the settlement worker may be sending at the same time. null: the provider has none yet.
   */
  known?(refund: Refund): Promise<ProviderRefundState | null>;
}

/** How long a claimed send of a non-idempotent refund is its claimer's (past it, a read-back decides again). */
const SEND_LEASE_SECONDS = 60;

/**
 * The route of a provider whose refund send is not idempotent: one sender at a time, and it reads back under its
 * claim, so a settlement delivered twice at once, or one that read back before another's send ended, never sends the
 * refund twice. The claim ends with the send; one whose sender died mid-send is taken again after the lease. A
 * notification's settlement only reads (`known`). The provider's definite no fails the refund.
 */
function exclusiveSend(
  deps: PaymentDeps,
  provider: LiveRefundRoute['provider'],
  known: (refund: Refund) => Promise<ProviderRefundState | null>,
  send: (refund: Refund) => Promise<ProviderRefundState>,
): LiveRefundRoute {
  return {
    provider,
    known,
    async state(refund) {
      const claimedAt = deps.clock.now().toISOString();
      if (!(await deps.refunds.claimSend(refund.refund_id, claimedAt, SEND_LEASE_SECONDS))) {
        return (await known(refund)) ?? { refundId: refund.refund_id, kind: 'pending' };
      }
      try {
        return (await known(refund)) ?? (await send(refund));
      } catch (e) {
        if (e instanceof ProviderRejected) return { refundId: refund.refund_id, kind: 'failed', reason: e.code };
        throw e;
      } finally {
        await deps.refunds.releaseSend(refund.refund_id, claimedAt);
      }
    },
  };
}

/**
 * Refunds by the provider's id of the payment (a local aggregator's, dLocal's), our refund read back first (a send
 * whose answer was lost is never sent again); a definite no fails the refund. Their notifications come to the
 * provider's payment notifications route.
 */
function readBackRoute(deps: PaymentDeps, payment: Payment, refunds: LocalRefundConnector, providerPaymentId: string): LiveRefundRoute {
  return exclusiveSend(
    deps,
    refunds.provider,
    (refund) => refunds.get({ providerPaymentId, refundId: refund.refund_id }),
    (refund) =>
      refunds.send({
        providerPaymentId,
        refundId: refund.refund_id,
        amountMinor: refund.amount_minor,
        currency: refund.currency,
        paymentAmountMinor: payment.amount_minor,
        notificationUrl: `${deps.baseUrl()}${heldLocalPaths(refunds.provider.name, payment.payment_id).notifications}`,
      }),
  );
}

/**
 * How a live payment's money goes back, one row per way a provider holds it (as rails/held.ts chooses how a
 * payment is held): the row that answers for the payment gives the route, the first that answers wins. A new
 * rail's refunds are a new row here, not a branch.
 */
const refundRoutes: ReadonlyArray<(c: Connectors, payment: Payment, deps: PaymentDeps) => LiveRefundRoute | null> = [
  // A card charge: refunded by the provider of the attempt that succeeded, by the id it gave the payment (Adyen's
  // pspReference: acknowledged, its notification settles it; dLocal's payment id: read back first).
  (c, payment, deps) => {
    const refunds = cardRailOf(c, payment.provider?.name)?.refunds;
    const pspReference = payment.provider?.details.psp_reference;
    if (payment.payment_method !== 'card' || !refunds || payment.provider?.name !== refunds.provider.name || !pspReference) return null;
    if (readsBackRefunds(refunds)) return readBackRoute(deps, payment, refunds, pspReference);
    return {
      provider: refunds.provider,
      async state(refund) {
        try {
          return await refunds.send({
            pspReference,
            refundId: refund.refund_id,
            amountMinor: refund.amount_minor,
            currency: refund.currency,
          });
        } catch (e) {
          // The provider's definite no (e.g. more than is left to refund): the refund fails, nothing moved.
          if (e instanceof ProviderRejected) return { refundId: refund.refund_id, kind: 'failed', reason: e.code };
          throw e;
        }
      },
    };
  },
  // A received Pix: a devolução of its end-to-end id, read back first (it may have been sent before a crash).
  (c, payment, deps) => {
    // The PSP that holds the payment (its attempt that succeeded) returns it.
    const refunds = pixRailOf(c, payment.provider?.name)?.refunds;
    const endToEndId = payment.provider?.details.end_to_end_id;
    if (payment.payment_method !== 'pix' || !refunds || payment.provider?.name !== refunds.provider.name || !endToEndId) return null;
    // A PSP that refunds by its own payment id (an aggregator) kept it when the charge opened.
    const providerPaymentId = payment.provider.details.provider_payment_id;
    const ids = (refund: Refund) => ({ endToEndId, refundId: refund.refund_id, ...(providerPaymentId ? { providerPaymentId } : {}) });
    const known = (refund: Refund) => refunds.get(ids(refund));
    const send = (refund: Refund) =>
      refunds.send({
        ...ids(refund),
        amountMinor: refund.amount_minor,
        description: `Refund ${refund.refund_id}`,
        callbackBaseUrl: deps.baseUrl(),
      });
    // A send that is not idempotent: one sender at a time, reading back under its claim (exclusiveSend).
    if (refunds.repeatable === false) return exclusiveSend(deps, refunds.provider, known, send);
    return {
      provider: refunds.provider,
      async state(refund) {
        return (await known(refund)) ?? (await send(refund));
      },
    };
  },
  // A local payment an aggregator holds (dLocal): refunded by its id there, our refund read back first.
  (c, payment, deps) => {
    const refunds = localRailOf(c, payment.provider?.name)?.refunds;
    const providerPaymentId = payment.provider?.details.provider_payment_id;
    if (!refunds || payment.provider?.name !== refunds.provider.name || !providerPaymentId) return null;
    return readBackRoute(deps, payment, refunds, providerPaymentId);
  },
];

/** The provider that returns a live payment's money, or METHOD_NOT_AVAILABLE (what createRefund checks before committing). */
export async function liveRefundConnector(deps: PaymentDeps, payment: Payment): Promise<LiveRefundRoute> {
  const connectors = await deps.connectors.forMode(true);
  if (connectors)
    for (const row of refundRoutes) {
      const route = row(connectors, payment, deps);
      if (route) return route;
    }
  throw new AppError(
    'METHOD_NOT_AVAILABLE',
    `Live refunds of ${payment.payment_method} payments are not available with the configured providers.`,
  );
}

const decisionOf = (state: ProviderRefundState): RefundDecision =>
  state.kind === 'pending' ? { to: 'pending' } : state.kind === 'succeeded' ? { to: 'succeeded' } : { to: 'failed', reason: state.reason };

/**
 * The provider's answer for a pending live refund: read back (it may have been sent before a crash), sent when
 * the provider has never seen it (a provider without read-back is sent again: idempotent by our refund id).
 * An unreachable provider leaves it pending for the next attempt.
 */
export async function liveRefundDecision(deps: PaymentDeps, refund: Refund, o: { readOnly?: boolean } = {}): Promise<RefundDecision> {
  const payment = await deps.store.getPayment(refund.payment_id);
  if (!payment) throw new Error(`refund ${refund.refund_id} has no payment ${refund.payment_id}`);
  try {
    const route = await liveRefundConnector(deps, payment);
    if (o.readOnly && route.known) {
      const held = await route.known(refund);
      return held ? decisionOf(held) : { to: 'pending' };
    }
    return decisionOf(await route.state(refund));
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
  return settlePendingRefunds(deps, payment);
}

/**
 * A provider reported a refund of this payment: each of its pending live refunds is read back from the provider
 * (never taken from the report; a provider whose sends are not idempotent is only read, never sent to) and settled
 * when final. Answers how many were; a duplicate or stale report settles nothing more; a provider that does not
 * answer leaves them pending (the settlement resume job asks again).
 */
export async function settlePendingRefunds(deps: PaymentDeps, payment: Payment): Promise<number> {
  const pending = (await deps.refunds.listByPayment(payment.payment_id)).filter((r) => r.status === 'pending' && r.livemode);
  let settled = 0;
  for (const refund of pending) {
    const decision = await liveRefundDecision(deps, refund, { readOnly: true });
    if (decision.to === 'pending') continue;
    await applyRefundDecision(deps, refund.refund_id, decision);
    settled++;
  }
  return settled;
}
