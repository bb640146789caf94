/**
 * Live payouts through a provider (DESIGN.md section 8): the payout is committed `processing` with its ledger
 * debit, its provider reference and the exact order first; the order is registered after. What the provider
 * holds is only learned by reading the order back (a state callback is a hint to read it, never the state
 * itself); an unanswered registration leaves the payout processing until the resume job reads the order
 * back and, only when the provider has none, sends the same order again (the provider refuses a second
 * order with one reference, so there is never a second payment).
 */
import type { findPayoutMethod } from '../../domain/catalog/payout-methods';
import { AppError } from '../../domain/errors';
import { nextReturnCheck, startReturnWatch, type Payout } from '../../domain/payouts/payout';
import type { CreatePayoutInput } from '../../domain/payouts/payout.schemas';
import {
  type PayoutConnector,
  type PayoutOrderRequest,
  type PayoutStateItem,
  type ProviderOrderState,
  ProviderRejected,
  ProviderUnavailable,
} from '../providers';
import { WriteConflict } from '../ports';
import { transition, type PayoutDeps } from './payout-transition';

type PayoutMethod = NonNullable<ReturnType<typeof findPayoutMethod>>;

/** The live connector that pays this method: SPEI (a CLABE in Mexico); none otherwise or when not configured. */
export async function livePayoutConnector(deps: Pick<PayoutDeps, 'connectors'>, method: PayoutMethod): Promise<PayoutConnector | null> {
  if (method.country !== 'MEX' || !method.instant_transfer_types.includes('clabe')) return null;
  return (await deps.connectors?.forMode(true))?.speiPayouts ?? null;
}

export function payoutOrderRequest(payoutId: string, amountMinor: number, input: CreatePayoutInput): PayoutOrderRequest {
  return {
    payoutId,
    amountMinor,
    clabe: (input.beneficiary.instant_transfer_key ?? '').trim(),
    beneficiaryName: input.beneficiary.name,
    beneficiaryDocument: input.beneficiary.document,
    concept: input.description ?? null,
  };
}

/** The provider's definite no: the payout fails and its amount is credited back, in one transaction. */
async function failRejected(deps: PayoutDeps, p: Payout, e: ProviderRejected): Promise<Payout> {
  try {
    return await transition(deps, p, 'failed', { failure_reason: e.code });
  } catch (x) {
    if (x instanceof WriteConflict) return (await deps.store.get(p.payout_id)) ?? p;
    throw x;
  }
}

/**
 * Sends the committed order. Registered (or already held: an earlier send got through): the payout stays
 * processing until the order settles. No answer: 502 naming the payout; the resume job resolves it. Refused:
 * the payout fails, the amount is back in the balance, and the merchant is told (422).
 */
export async function registerLivePayout(deps: PayoutDeps, payout: Payout, connector: PayoutConnector): Promise<Payout> {
  const link = payout.provider as NonNullable<Payout['provider']>;
  try {
    const r = await connector.register({ reference: link.reference, sealed: link.sealed_order ?? '' });
    return 'orderId' in r ? await keepOrderId(deps, payout, r.orderId) : payout;
  } catch (e) {
    if (e instanceof ProviderUnavailable) {
      throw new AppError(
        'PROVIDER_UNAVAILABLE',
        `The payout provider did not answer. Payout ${payout.payout_id} is processing; its outcome follows by webhook.`,
      );
    }
    if (e instanceof ProviderRejected) {
      await failRejected(deps, payout, e);
      throw new AppError(
        'PROVIDER_REJECTED',
        `The payout provider refused payout ${payout.payout_id} (${e.code}); the amount is back in your balance.`,
      );
    }
    throw e;
  }
}

/**
 * The provider's id of the order, kept as soon as the registration answers it (a state callback must name the
 * same order). Conditional on the payout still processing: a payout that already moved keeps what it has.
 */
async function keepOrderId(deps: PayoutDeps, p: Payout, orderId: string): Promise<Payout> {
  if (!p.provider || p.provider.details.order_id === orderId) return p;
  const provider = { ...p.provider, details: { ...p.provider.details, order_id: orderId } };
  try {
    await linkOrder(deps, p, orderId);
    await deps.store.annotate({ payout: p, provider, now: deps.clock.now().toISOString() });
    return { ...p, provider };
  } catch (e) {
    if (e instanceof WriteConflict) return p;
    throw e;
  }
}

/**
 * The provider's id of the payout's order, kept where a callback naming only that id finds the payout. Written
 * before the payout records the id (so every recorded id is findable); an id already kept for the payout is a no-op.
 */
async function linkOrder(deps: PayoutDeps, p: Payout, orderId: string | undefined): Promise<void> {
  if (!p.provider || !orderId || p.provider.details.order_id === orderId) return;
  await deps.store.linkOrder({ provider: p.provider.name, orderId, payoutId: p.payout_id, now: deps.clock.now().toISOString() });
}

export type LiveOutcome = 'completed' | 'failed' | 'refunded' | 'waiting' | 'registered' | 'closed';

/**
 * The provider link once the payout leaves processing: the sealed order is dropped (an order is never sent
 * again after that, so nothing needs the full account or document any more) and the order id kept.
 */
function settledLink(p: Payout, orderId: string | undefined): Partial<Payout> {
  if (!p.provider) return {};
  const details = orderId && !p.provider.details.order_id ? { ...p.provider.details, order_id: orderId } : p.provider.details;
  return { provider: { ...p.provider, sealed_order: null, details } };
}

/**
 * Moves a payout to what the provider holds: settled -> completed; cancelled -> failed and credited back;
 * returned -> refunded (completed first when the settlement was never seen) with its credit-back. A state
 * the payout is already past changes nothing, so a duplicate or out-of-order change is harmless.
 */
export async function applyOrderState(
  deps: PayoutDeps,
  p: Payout,
  state: ProviderOrderState,
  connector: Pick<PayoutConnector, 'returnWatchSeconds'>,
): Promise<LiveOutcome> {
  const clock = deps.clock.now();
  const now = clock.toISOString();
  // An order id learned by reading back (its registration's answer was lost): findable before it is recorded.
  if (state.kind !== 'not_found' && !p.provider?.details.order_id) await linkOrder(deps, p, state.orderId);
  switch (state.kind) {
    case 'settled':
      if (p.status !== 'processing') return 'closed';
      await transition(deps, p, 'completed', {
        completed_at: state.at ?? now,
        ...settledLink(p, state.orderId),
        // The beneficiary's bank can still send it back, and the provider may not call back: watched for a while.
        return_watch: startReturnWatch(clock, connector.returnWatchSeconds),
      });
      return 'completed';
    case 'cancelled':
      if (p.status !== 'processing') return 'closed';
      await transition(deps, p, 'failed', { failure_reason: 'cancelled_by_bank', ...settledLink(p, state.orderId) });
      return 'failed';
    case 'returned': {
      if (p.status !== 'processing' && p.status !== 'completed') return 'closed';
      const completed =
        p.status === 'processing'
          ? await transition(deps, p, 'completed', { completed_at: state.at ?? now, ...settledLink(p, state.orderId) })
          : p;
      await transition(deps, completed, 'refunded', { failure_reason: 'returned_by_beneficiary_bank', return_watch: null });
      return 'refunded';
    }
    default:
      // Still in flight: the order id the read-back names is kept now, so its state change finds the payout.
      if (state.kind === 'pending' && state.orderId && p.status === 'processing') await keepOrderId(deps, p, state.orderId);
      return 'waiting';
  }
}

/**
 * The resume path (settlement worker, sent by the resume job): a processing live payout's order is read back;
 * held -> its state applied; not held -> the same order sent again (the query decides, so never twice).
 * The provider not answering leaves the payout as it is for the job's next run.
 */
export async function resolveLivePayout(deps: PayoutDeps, p: Payout): Promise<Payout> {
  if (!p.provider || p.status !== 'processing') return p;
  const connector = (await deps.connectors?.forMode(true))?.speiPayouts;
  if (!connector) return p;
  try {
    const state = await connector.get(p.provider.reference);
    if (state.kind === 'not_found') {
      try {
        const r = await connector.register({ reference: p.provider.reference, sealed: p.provider.sealed_order ?? '' });
        return 'orderId' in r ? await keepOrderId(deps, p, r.orderId) : p;
      } catch (e) {
        if (e instanceof ProviderRejected) return await failRejected(deps, p, e);
        throw e;
      }
    }
    await applyOrderState(deps, p, state, connector);
  } catch (e) {
    if (e instanceof ProviderUnavailable) return p;
    if (!(e instanceof WriteConflict)) throw e;
  }
  return (await deps.store.get(p.payout_id)) ?? p;
}

/**
 * A completed payout's return check (the resume job sends it when due): the order is read back; returned ->
 * refunded with its credit-back and webhook (once: the transition is conditional); otherwise the watch moves
 * to its next, later check, or ends with its window. The provider not answering leaves it due for the next run.
 */
export async function watchLivePayout(deps: PayoutDeps, p: Payout): Promise<Payout> {
  if (!p.provider || p.status !== 'completed' || !p.return_watch) return p;
  const connector = (await deps.connectors?.forMode(true))?.speiPayouts;
  const now = deps.clock.now();
  try {
    if (connector) {
      const state = await connector.get(p.provider.reference);
      if (state.kind === 'returned') {
        await applyOrderState(deps, p, state, connector);
        return (await deps.store.get(p.payout_id)) ?? p;
      }
    }
    // No return (or no provider configured any more): the next check, or the end of the watch.
    await deps.store.rewatch({ payout: p, next: connector ? nextReturnCheck(p.return_watch, now) : null, now: now.toISOString() });
  } catch (e) {
    if (e instanceof ProviderUnavailable) return p;
    if (!(e instanceof WriteConflict)) throw e;
  }
  return (await deps.store.get(p.payout_id)) ?? p;
}

/**
 * Whether a claimed state is further along than what the provider holds: anything final while the order is in
 * flight or unknown, a return while it is only settled. A claim the provider's state already passed (a late
 * or duplicate change) or contradicts (a cancellation of a settled order) is not ahead: it changes nothing.
 */
function ahead(claimed: PayoutStateItem['claimed'], state: ProviderOrderState): boolean {
  if (state.kind === 'pending' || state.kind === 'not_found') return true;
  return claimed === 'returned' && state.kind === 'settled';
}

export interface StateCallbackResult {
  readonly outcome: LiveOutcome | 'unknown' | 'unconfirmed' | 'mismatch';
}

/**
 * The provider's order-state callback: 404 for a wrong token (nothing read), 400 for a body that is not the
 * provider's shape; then the order is read back and what the provider holds is applied (the callback's claim
 * alone changes nothing). The provider not answering the read-back, or not showing the claimed state yet, is a
 * 502, so the provider sends the change again.
 */
export async function receivePayoutStateCallback(deps: PayoutDeps, token: string, readBody: () => unknown): Promise<StateCallbackResult> {
  const connectors = await deps.connectors?.forMode(true);
  const callbacks = connectors?.speiPayoutCallbacks;
  const connector = connectors?.speiPayouts;
  if (!callbacks || !connector || !callbacks.tokenMatches(token)) throw new AppError('NOT_FOUND');
  const item = callbacks.parseState(readBody());
  if (!item) throw new AppError('VALIDATION_ERROR', "The callback body is not the provider's order-state shape.");
  // Found by what the provider itself keeps: its id of our order (kept from the registration's answer or a
  // read-back), else our reference when the callback carries it. Never by a field we did not send.
  const byOrder = await deps.store.payoutOfOrder(connector.provider.name, item.orderId);
  const payoutId = byOrder ?? (item.reference ? callbacks.payoutIdOf(item.reference) : null);
  for (let attempt = 0; ; attempt++) {
    const p = payoutId ? await deps.store.get(payoutId) : null;
    if (!p || !p.livemode || !p.provider || p.provider.name !== connector.provider.name) return { outcome: 'unknown' };
    const reference = p.provider.reference;
    // A reference naming another order than the one this id belongs to: nothing moves.
    if (item.reference && item.reference !== reference) return { outcome: byOrder ? 'mismatch' : 'unknown' };
    // The provider's id of our order, kept from its registration: a change naming another order moves nothing.
    const known = p.provider.details.order_id;
    if (known && known !== item.orderId) return { outcome: 'mismatch' };
    let state: ProviderOrderState;
    try {
      state = await connector.get(reference);
    } catch (e) {
      if (e instanceof ProviderUnavailable)
        throw new AppError('PROVIDER_UNAVAILABLE', 'The order could not be read back from the provider; send the change again.');
      throw e;
    }
    // A state the provider does not show yet (its query lags its callback, or the claim is forged): nothing is
    // applied and the provider is asked to send it again, so a real change is never dropped.
    if (ahead(item.claimed, state))
      throw new AppError('PROVIDER_UNAVAILABLE', 'The provider does not show this order state yet; send the change again.');
    // Registered without its answer (the id was never kept): the order read back names its id.
    if (!known && state.kind !== 'not_found' && state.orderId && state.orderId !== item.orderId) return { outcome: 'mismatch' };
    try {
      const outcome = await applyOrderState(deps, p, state, connector);
      return { outcome: state.kind === item.claimed ? outcome : 'unconfirmed' };
    } catch (e) {
      // A racing writer (the resume job, a duplicate callback): read again once; its state stands.
      if (!(e instanceof WriteConflict) || attempt >= 1) throw e;
    }
  }
}
