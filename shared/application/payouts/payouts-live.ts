/**
 * Live payouts through a provider (DESIGN.md section 8): the payout is committed `processing` with its ledger
 * debit, its provider reference and the exact order first; the order is registered after. What the provider
 * holds is only learned by reading the order back (a state callback is a hint to read it, never the state
 * itself); an unanswered registration leaves the payout processing until the resume job reads the order
 * back and, only when the provider has none, sends the same order again (the provider refuses a second
 * order with one reference, so there is never a second payment).
 *
 * Which provider pays a method is one table (LIVE_PAYOUT_RAILS): the method code names a rail, the stage's
 * configuration fills the rail with its provider's connector. Every rail is the same port (PayoutConnector).
 */
import { AppError } from '../../domain/errors';
import { nextReturnCheck, startReturnWatch, type Payout } from '../../domain/payouts/payout';
import type { CreatePayoutInput } from '../../domain/payouts/payout.schemas';
import {
  type PayoutConnector,
  type PayoutOrderRequest,
  type ProviderOrderState,
  ProviderRejected,
  ProviderUnavailable,
} from '../providers';
import { WriteConflict } from '../ports';
import { transition, type PayoutDeps } from './payout-transition';
import { connectorOfPayout } from './payout-rails';

export { connectorOfPayout, livePayoutCandidates, LIVE_PAYOUT_RAILS, payoutKindOf, payoutRailOf, type PayoutRail } from './payout-rails';
import { breakers, classifyFailure, nextCandidate, recordAttempt, type AttemptResult, type PlannedAttempt } from '../routing';

/**
 * How long a send claim holds (seconds): longer than any one send can last (token plus request, each bounded by
 * the connector's timeouts, inside the function's own timeout), so a claim that lapses belongs to a send that ended.
 */
export const SEND_LEASE_SECONDS = 60;

export function payoutOrderRequest(
  payoutId: string,
  amountMinor: number,
  input: CreatePayoutInput,
  callbackBaseUrl: string,
): PayoutOrderRequest {
  const b = input.beneficiary;
  const key = (b.instant_transfer_key ?? '').trim();
  return {
    payoutId,
    methodCode: input.method_code,
    amountMinor,
    currency: input.currency,
    beneficiaryName: b.name,
    beneficiaryDocument: b.document,
    documentType: b.document_type ?? '',
    instantTransferKey: key || null,
    instantTransferType: b.instant_transfer_type ?? null,
    bankAccount:
      b.bank_code && b.account_number && b.account_type
        ? { bankCode: b.bank_code.trim(), accountNumber: b.account_number.trim(), accountType: b.account_type }
        : null,
    concept: input.description ?? null,
    callbackBaseUrl,
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
export async function registerLivePayout(
  deps: PayoutDeps,
  payout: Payout,
  connector: PayoutConnector,
  failover?: PayoutFailover,
): Promise<Payout> {
  let current = payout;
  let rail = connector;
  for (let i = failover?.index ?? 0; ;) {
    const link = current.provider as NonNullable<Payout['provider']>;
    const kind = failover?.kind ?? rail.provider.name;
    const started = performance.now();
    const observe = (outcome: AttemptResult) => {
      const ms = performance.now() - started;
      recordAttempt(deps.attempts, { provider: rail.provider.name, kind, outcome, latencyMs: ms, now: deps.clock.now().getTime() });
      return Math.round(ms);
    };
    let latencyMs: number | null = null;
    try {
      const r = await rail.register({ reference: link.reference, sealed: link.sealed_order ?? '' });
      latencyMs = observe('pending');
      return await registered(deps, current, r, rail, latencyMs);
    } catch (e) {
      latencyMs ??= observe(e instanceof ProviderUnavailable ? 'no_answer' : 'rejected');
      // Payouts fail over only when the send certainly made nothing (never sent, a documented "not processed"): a
      // PIX sent cannot be called back, so no answer is never read back into a failover (it stays with its provider).
      const c = classifyFailure(e);
      const switched = c.kind === 'no_money' && failover ? await switchPayout(deps, current, failover, i, c.failureCode, latencyMs) : null;
      if (!switched) return endAsBefore(deps, current, e);
      if (!('payout' in switched)) return switched.answer;
      if (c.kind === 'no_money') deps.attempts?.failedOver(rail.provider.name, kind, c.failureCode);
      ({ payout: current, index: i } = switched);
      rail = failover!.candidates[i]!.rail;
    }
  }
}

/** What a routed payout may still try: its candidates, where it is, and its request (kept in memory only, never stored). */
export interface PayoutFailover {
  readonly kind: string;
  readonly candidates: ReadonlyArray<PlannedAttempt<PayoutConnector>>;
  readonly index: number;
  readonly request: PayoutOrderRequest;
}

/**
 * The payout's next attempt: its order prepared at the next candidate under that attempt's reference, committed before
 * it is sent (with the ended attempt and any skipped on the way). Null: nothing left to try (or its order cannot be
 * made there); `answer`: another writer moved the payout first (its state stands).
 */
async function switchPayout(
  deps: PayoutDeps,
  payout: Payout,
  f: PayoutFailover,
  from: number,
  failureCode: string,
  latencyMs: number,
): Promise<{ payout: Payout; index: number } | { answer: Payout } | null> {
  const next = nextCandidate(f.candidates, from + 1, f.kind, breakers, deps.clock.now().getTime(), true);
  if (!next) return null;
  const link = payout.provider as NonNullable<Payout['provider']>;
  const attempt = (link.attempt ?? 1) + 1;
  const to = f.candidates[next.index]!.rail;
  const prepared = to.prepare({ ...f.request, reference: to.provider.reference(payout.payout_id, attempt) });
  if ('invalid' in prepared) return null;
  const at = deps.clock.now().toISOString();
  const ended = [
    {
      provider: link.name,
      outcome: 'failed' as const,
      failure_code: failureCode,
      reference: link.reference,
      attempt: link.attempt ?? 1,
      at,
    },
    ...next.skipped.map((provider) => ({
      provider,
      outcome: 'skipped' as const,
      failure_code: 'provider_paused',
      at,
      latency_ms: latencyMs,
    })),
  ];
  const provider = {
    name: to.provider.name,
    reference: prepared.order.reference,
    order: prepared.order.summary,
    sealed_order: prepared.order.sealed,
    details: {},
    attempt,
  };
  try {
    await deps.store.switchAttempt({ payout, ended, next: provider, now: at });
  } catch (e) {
    if (!(e instanceof WriteConflict)) throw e;
    return { answer: (await deps.store.get(payout.payout_id)) ?? payout };
  }
  return {
    payout: { ...payout, provider, ended_attempts: [...(payout.ended_attempts ?? []), ...ended], updated_at: at },
    index: next.index,
  };
}

/** The send ends as before routing: no answer (502, processing; the resume job reads it back) or refused (failed). */
async function endAsBefore(deps: PayoutDeps, payout: Payout, e: unknown): Promise<never> {
  if (e instanceof ProviderUnavailable) {
    // The send ended unanswered: the claim taken at the commit ends too, so the resume job may read it back
    // and send it again (the provider refuses a second order with one reference: never a second payment).
    if (payout.send_claimed_at) await deps.store.releaseSend({ payoutId: payout.payout_id, claimedAt: payout.send_claimed_at });
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

/**
 * What a registration answered: the provider's id of the order kept; a state the answer already gives (paid or
 * refused at once) applied as a read-back's would be.
 */
async function registered(
  deps: PayoutDeps,
  p: Payout,
  r: Awaited<ReturnType<PayoutConnector['register']>>,
  connector: PayoutConnector,
  latencyMs?: number,
): Promise<Payout> {
  if (!('orderId' in r)) return p;
  const kept = await keepOrderId(deps, p, r.orderId, r.state?.kind === 'pending' ? r.state.held : undefined, latencyMs);
  if (!r.state || r.state.kind === 'pending' || r.state.kind === 'not_found') return kept;
  try {
    await applyOrderState(deps, (await deps.store.get(p.payout_id)) ?? kept, r.state, connector);
  } catch (e) {
    if (!(e instanceof WriteConflict)) throw e;
  }
  return (await deps.store.get(p.payout_id)) ?? kept;
}

/**
 * The provider's id of the order, kept as soon as the registration answers it (a state callback must name the
 * same order), and whether the provider holds it for review (`on_hold`, in the payout's provider details for an
 * operator). Conditional on the payout still processing: a payout that already moved keeps what it has.
 */
async function keepOrderId(deps: PayoutDeps, p: Payout, orderId: string, held?: boolean, latencyMs?: number): Promise<Payout> {
  const onHold = held === undefined ? p.provider?.details.on_hold : held ? 'yes' : 'no';
  if (!p.provider || (p.provider.details.order_id === orderId && p.provider.details.on_hold === onHold)) return p;
  // The send's time is kept with the provider's answer (`providers stats`: latency per provider).
  const latency: Record<string, string> =
    latencyMs !== undefined && !p.provider.details.latency_ms ? { latency_ms: String(latencyMs) } : {};
  const provider = {
    ...p.provider,
    details: { ...p.provider.details, order_id: orderId, ...(onHold ? { on_hold: onHold } : {}), ...latency },
  };
  try {
    if (p.provider.details.order_id !== orderId) await linkOrder(deps, p, orderId);
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
      await transition(deps, p, 'failed', { failure_reason: state.failureCode ?? 'cancelled_by_bank', ...settledLink(p, state.orderId) });
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
      if (state.kind === 'pending' && state.orderId && p.status === 'processing') await keepOrderId(deps, p, state.orderId, state.held);
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
  const connector = connectorOfPayout(await deps.connectors?.forMode(true), p);
  if (!connector) return p;
  try {
    const state = await connector.get(p.provider.reference);
    if (state.kind === 'not_found') return await sendAgain(deps, p, connector);
    await applyOrderState(deps, p, state, connector);
  } catch (e) {
    if (e instanceof ProviderUnavailable) return p;
    if (!(e instanceof WriteConflict)) throw e;
  }
  return (await deps.store.get(p.payout_id)) ?? p;
}

/**
 * A processing payout its provider does not hold: sent again only under this caller's send claim, and read back
 * once more under it, so a send still in flight (the creating request's, or another worker's given the same
 * message) is never raced by a second one. The claim ends with the send.
 */
async function sendAgain(deps: PayoutDeps, p: Payout, connector: PayoutConnector): Promise<Payout> {
  const link = p.provider as NonNullable<Payout['provider']>;
  const claimedAt = deps.clock.now().toISOString();
  if (!(await deps.store.claimSend({ payoutId: p.payout_id, now: claimedAt, leaseSeconds: SEND_LEASE_SECONDS }))) return p;
  try {
    const state = await connector.get(link.reference);
    if (state.kind !== 'not_found') {
      await applyOrderState(deps, p, state, connector);
      return (await deps.store.get(p.payout_id)) ?? p;
    }
    const r = await connector.register({ reference: link.reference, sealed: link.sealed_order ?? '' });
    return await registered(deps, p, r, connector);
  } catch (e) {
    if (e instanceof ProviderRejected) return await failRejected(deps, p, e);
    throw e;
  } finally {
    await deps.store.releaseSend({ payoutId: p.payout_id, claimedAt });
  }
}

/**
 * A completed payout's return check (the resume job sends it when due): the order is read back; returned ->
 * refunded with its credit-back and webhook (once: the transition is conditional); otherwise the watch moves
 * to its next, later check, or ends with its window. The provider not answering leaves it due for the next run.
 */
export async function watchLivePayout(deps: PayoutDeps, p: Payout): Promise<Payout> {
  if (!p.provider || p.status !== 'completed' || !p.return_watch) return p;
  const connector = connectorOfPayout(await deps.connectors?.forMode(true), p);
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
