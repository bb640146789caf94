/**
 * Payout use cases (SPEC.md 2.6, 3.3, 4.4): create with a conditional balance
 * debit, read, cancel, list, methods, beneficiary validation, balances, and the
 * sandbox settlement steps. A duplicate or wrongly debited payout is the worst
 * bug this service can have: every change is one conditional transaction.
 */
import { AppError } from '../../domain/errors';
import { findPayoutMethod, listPayoutMethods } from '../../domain/catalog/payout-methods';
import { toMinor } from '../../domain/money';
import { describeFieldErrors, validateBeneficiary } from '../../domain/payouts/beneficiary';
import { maskBeneficiary } from '../../domain/payouts/masking';
import { owedSettlementStep, PAYOUT_EVENT, sandboxOutcome, type Payout, type PayoutStatus } from '../../domain/payouts/payout';
import { payoutEvent } from '../../domain/payouts/payout-events';
import type { CreatePayoutInput } from '../../domain/payouts/payout.schemas';
import type { CurrencyCode } from '../../domain/geo';
import type { Principal } from '../access';
import { commitAndPublish, WriteConflict, type Answering, type BalanceView, type PayoutListQuery, type SettlementStep } from '../ports';
import { modeOf } from '../../domain/access';
import { transition, type PayoutDeps } from './payout-transition';
import {
  livePayoutCandidates,
  payoutKindOf,
  payoutOrderRequest,
  payoutRailOf,
  registerLivePayout,
  resolveLivePayout,
  watchLivePayout,
  type PayoutFailover,
} from './payouts-live';
import { breakers, nextCandidate } from '../routing';
import type { PayoutConnector } from '../providers';

function methodFor(principal: Principal, code: string) {
  const method = findPayoutMethod(code);
  if (!method) throw new AppError('METHOD_NOT_AVAILABLE', `${code} is not a payout method.`);
  if (!principal.merchant.methods.includes(code) || !principal.merchant.countries.includes(method.country)) {
    throw new AppError('METHOD_NOT_AVAILABLE', `${code} (${method.name}) is not enabled for this merchant.`);
  }
  return method;
}

function checkBeneficiary(method: NonNullable<ReturnType<typeof findPayoutMethod>>, beneficiary: unknown) {
  const r = validateBeneficiary(method, beneficiary);
  if (r.malformed.length)
    throw new AppError('VALIDATION_ERROR', `Invalid request parameters: ${r.malformed.map((e) => e.field).join(', ')}.`, {
      details: r.malformed,
    });
  if (r.invalid.length)
    throw new AppError('INVALID_BENEFICIARY', `Invalid beneficiary: ${describeFieldErrors(r.invalid)}`, {
      details: r.invalid,
    });
}

/** A payout checked and built, not yet committed: what its commit writes and what runs after it. */
export interface PreparedPayout {
  readonly payout: Payout;
  readonly events: ReturnType<typeof payoutEvent>[];
  /** The live provider that pays it (registered after the commit); null in test mode. */
  readonly live: PayoutConnector | null;
  /** What a routed payout may still try when its first send certainly made nothing (memory only: never stored). */
  readonly failover?: PayoutFailover;
}

/**
 * Every check of a payout request (method, currency, amount, beneficiary, notification URL, provider) and the
 * payout it makes, before anything is written: an AppError names what is wrong.
 */
export async function preparePayout(
  deps: PayoutDeps,
  principal: Principal,
  input: CreatePayoutInput,
  payoutId: string,
): Promise<PreparedPayout> {
  const method = methodFor(principal, input.method_code);
  if (input.currency !== method.currency) {
    throw new AppError('VALIDATION_ERROR', `${method.method_code} pays out in ${method.currency}.`, {
      details: [{ field: 'currency', message: `must be ${method.currency} for ${method.method_code}` }],
    });
  }
  const amountMinor = toMinor(input.amount, input.currency as CurrencyCode);
  if (amountMinor === null)
    throw new AppError('VALIDATION_ERROR', 'Invalid amount.', {
      details: [{ field: 'amount', message: `must be greater than 0 with at most the decimals of ${input.currency}` }],
    });
  if (input.amount > method.max_amount)
    throw new AppError('AMOUNT_LIMIT_EXCEEDED', `${method.name} pays out at most ${method.max_amount} ${method.currency}.`);
  if (input.amount < method.min_amount) {
    throw new AppError('VALIDATION_ERROR', `${method.name} pays out at least ${method.min_amount} ${method.currency}.`, {
      details: [{ field: 'amount', message: `must be at least ${method.min_amount}` }],
    });
  }
  checkBeneficiary(method, input.beneficiary);
  if (input.notification_url) {
    const problem = deps.checkNotificationUrl(input.notification_url, principal.livemode);
    if (problem)
      throw new AppError('VALIDATION_ERROR', `notification_url is not allowed: ${problem}`, {
        details: [{ field: 'notification_url', message: problem }],
      });
  }
  // Test mode: the sandbox rail. Live: the provider that pays this method, if one is configured.
  const candidates = principal.livemode ? await livePayoutCandidates(deps, method, principal.merchant.routing) : [];
  const kind = payoutKindOf(payoutRailOf(method.method_code) ?? 'pixPayouts');
  // The first provider to try (one whose breaker is open is skipped, and shown so on the payout).
  const first = nextCandidate(candidates, 0, kind, breakers, deps.clock.now().getTime(), false);
  const live = first ? candidates[first.index]!.rail : null;
  const rail = principal.livemode ? null : deps.rails.forMode(false);
  if (!live && !rail)
    throw new AppError('METHOD_NOT_AVAILABLE', `No ${modeOf(principal.livemode)} payout provider is configured for ${method.name}.`);
  const request = payoutOrderRequest(payoutId, amountMinor, input, deps.baseUrl?.() ?? '');
  const prepared = live ? live.prepare(request) : null;
  if (prepared && 'invalid' in prepared)
    throw new AppError('INVALID_BENEFICIARY', `Invalid beneficiary: ${prepared.invalid}`, {
      details: [
        { field: input.beneficiary.instant_transfer_key ? 'beneficiary.instant_transfer_key' : 'beneficiary', message: prepared.invalid },
      ],
    });

  const at = deps.clock.now().toISOString();
  const outcome = principal.livemode ? null : sandboxOutcome(input.beneficiary.document);
  const status: PayoutStatus = outcome === 'hold' ? 'pending' : 'processing';
  const payout: Payout = {
    payout_id: payoutId,
    merchant_id: principal.merchant.merchant_id,
    livemode: principal.livemode,
    method_code: method.method_code,
    country: method.country,
    amount_minor: amountMinor,
    currency: input.currency as CurrencyCode,
    status,
    beneficiary: maskBeneficiary(input.beneficiary),
    sandbox_outcome: outcome,
    description: input.description ?? null,
    notification_url: input.notification_url ?? null,
    metadata: input.metadata,
    failure_reason: null,
    created_at: at,
    updated_at: at,
    completed_at: null,
    // Intent before call: the provider's reference and the exact order are committed before it is called.
    ...(live && prepared && 'order' in prepared
      ? {
          provider: {
            name: live.provider.name,
            reference: prepared.order.reference,
            order: prepared.order.summary,
            sealed_order: prepared.order.sealed,
            details: {},
          },
          // The creating request sends it: nobody else does while that send may still be in flight.
          send_claimed_at: at,
          ...(first?.skipped.length
            ? {
                ended_attempts: first.skipped.map((provider) => ({
                  provider,
                  outcome: 'skipped' as const,
                  failure_code: 'provider_paused',
                  at,
                })),
              }
            : {}),
        }
      : {}),
  };
  const type = PAYOUT_EVENT[status];
  const failover = live && first && candidates.length > first.index + 1 ? { kind, candidates, index: first.index, request } : undefined;
  return { payout, events: type ? [payoutEvent(type, payout, deps.ids.newId('evt_'), at)] : [], live, ...(failover ? { failover } : {}) };
}

/** After the commit: a live payout is registered with its provider; a sandbox one is scheduled on the rail. */
export async function launchPayout(deps: PayoutDeps, prepared: PreparedPayout): Promise<Payout> {
  const { payout, live, failover } = prepared;
  if (live) return registerLivePayout(deps, payout, live, failover);
  if (payout.status === 'processing') await deps.rails.forMode(false)?.schedule(payout.payout_id, 'settle');
  return payout;
}

export const insufficientBalance = (amount: number, currency: string) =>
  new AppError('INSUFFICIENT_BALANCE', `The ${currency} balance does not cover ${amount} ${currency}.`);

/**
 * A payout: checked, committed (debit, ledger entry, events and, on a keyed request, its answer, in one
 * transaction), then launched. `answering`: the keyed request's answer for the committed payout.
 */
export async function createPayout(
  deps: PayoutDeps,
  principal: Principal,
  input: CreatePayoutInput,
  payoutId: string,
  answering?: Answering<Payout>,
): Promise<Payout> {
  const prepared = await preparePayout(deps, principal, input, payoutId);
  const { payout } = prepared;
  try {
    await commitAndPublish(
      deps.publisher,
      deps.store.create({
        payout,
        events: prepared.events,
        ledgerEntryId: deps.ids.newId('le_'),
        now: payout.created_at,
        done: await answering?.(payout),
      }),
    );
  } catch (e) {
    if (e instanceof WriteConflict && e.entity === 'balance') throw insufficientBalance(input.amount, input.currency);
    if (e instanceof WriteConflict && e.entity === 'payout') {
      // A keyed retry after a crash: the id already exists; answer with it, debit nothing again.
      const existing = await deps.store.get(payoutId);
      if (existing && existing.merchant_id === payout.merchant_id) return existing;
    }
    throw e;
  }
  return launchPayout(deps, prepared);
}

async function ownPayout(deps: PayoutDeps, principal: Principal, payoutId: string) {
  const p = await deps.store.get(payoutId);
  if (!p || p.merchant_id !== principal.merchant.merchant_id || p.livemode !== principal.livemode) throw new AppError('PAYOUT_NOT_FOUND');
  return p;
}

export async function getPayout(deps: PayoutDeps, principal: Principal, payoutId: string): Promise<Payout> {
  return ownPayout(deps, principal, payoutId);
}

/** pending -> cancelled, credited back; `answering`: the keyed request's answer, in the same transaction. */
export async function cancelPayout(
  deps: PayoutDeps,
  principal: Principal,
  payoutId: string,
  answering?: Answering<Payout>,
): Promise<Payout> {
  const p = await ownPayout(deps, principal, payoutId);
  if (p.status !== 'pending') {
    throw new AppError(
      'CANNOT_CANCEL',
      p.status === 'processing' ? 'The payout is already processing.' : `The payout is already ${p.status}.`,
    );
  }
  try {
    return await transition(deps, p, 'cancelled', {}, answering);
  } catch (e) {
    if (e instanceof WriteConflict) throw new AppError('CANNOT_CANCEL', 'The payout started processing before it could be cancelled.');
    throw e;
  }
}

export async function listPayouts(
  deps: PayoutDeps,
  principal: Principal,
  q: { status?: PayoutStatus; from_date?: string; to_date?: string; limit: number; offset: number; starting_after?: string },
) {
  let startingAfter: Payout | undefined;
  if (q.starting_after) {
    if (q.offset > 0) {
      throw new AppError('VALIDATION_ERROR', 'Use offset or starting_after, not both.', {
        details: [{ field: 'starting_after', message: 'cannot be combined with offset' }],
      });
    }
    const p = await deps.store.get(q.starting_after);
    if (!p || p.merchant_id !== principal.merchant.merchant_id || p.livemode !== principal.livemode) {
      throw new AppError('VALIDATION_ERROR', 'starting_after must be the id of one of your payouts.', {
        details: [{ field: 'starting_after', message: 'no such payout' }],
      });
    }
    startingAfter = p;
  }
  const query: PayoutListQuery = {
    status: q.status,
    from: q.from_date ? new Date(q.from_date).toISOString() : undefined,
    to: q.to_date ? new Date(q.to_date).toISOString() : undefined,
    limit: q.limit,
    offset: q.offset,
    startingAfter,
  };
  return deps.store.list(principal.merchant.merchant_id, principal.mode, query);
}

export function availablePayoutMethods(principal: Principal, q: { country?: string; currency?: string }) {
  const enabled = principal.merchant.methods.filter((code) => {
    const m = findPayoutMethod(code);
    return m !== null && principal.merchant.countries.includes(m.country);
  });
  return listPayoutMethods(q, enabled);
}

/** SPEC.md 4.4.6: HTTP 200 either way; errors name each bad field. */
/** A beneficiary checked against a method's rules: valid with what was verified, or every bad field. */
export type BeneficiaryCheck =
  | { readonly valid: false; readonly errors: readonly { field: string; message: string }[] }
  | { readonly valid: true; readonly name: string; readonly document_valid: boolean; readonly key_valid: boolean | null };

/** SPEC.md 4.4.6: validation without a payout. */
export function validateBeneficiaryFor(principal: Principal, methodCode: string, beneficiary: unknown): BeneficiaryCheck {
  const method = methodFor(principal, methodCode);
  const r = validateBeneficiary(method, beneficiary);
  const errors = [...r.malformed, ...r.invalid];
  if (errors.length) return { valid: false, errors };
  const name = (beneficiary as { name?: string }).name ?? '';
  return { valid: true, name, document_valid: r.document_valid, key_valid: r.key_valid };
}

/** The principal's balances in its mode, one per currency. */
export async function balances(deps: PayoutDeps, principal: Principal): Promise<BalanceView[]> {
  return deps.store.balances(principal.merchant.merchant_id, principal.mode);
}

/**
 * Test money into a sandbox balance. `answering`: a keyed request's answer, recorded in the top-up's transaction:
 * the balances as this top-up leaves them (read before it, plus its amount), so a retry after a crash never tops
 * up twice.
 */
export async function topUpTestBalance(
  deps: Pick<PayoutDeps, 'store' | 'ids' | 'clock'>,
  merchantId: string,
  currency: CurrencyCode,
  amount: number,
  answering?: Answering<BalanceView[]>,
) {
  const minor = toMinor(amount, currency);
  if (minor === null)
    throw new AppError('VALIDATION_ERROR', 'Invalid amount.', {
      details: [{ field: 'amount', message: `must be greater than 0 with at most the decimals of ${currency}` }],
    });
  const now = deps.clock.now().toISOString();
  const after = answering && toppedUp(await deps.store.balances(merchantId, 'test'), currency, minor, now);
  await deps.store.topUp({
    merchantId,
    livemode: false,
    currency,
    amountMinor: minor,
    entryId: deps.ids.newId('le_'),
    reason: 'test_top_up',
    now,
    done: after && (await answering?.(after)),
  });
}

/** Balances (by currency, as the store lists them) after `minor` more in `currency` at `at`. */
function toppedUp(list: readonly BalanceView[], currency: string, minor: number, at: string): BalanceView[] {
  const found = list.some((b) => b.currency === currency);
  const out = list.map((b) => (b.currency === currency ? { ...b, available_minor: b.available_minor + minor, updated_at: at } : b));
  if (!found) out.push({ currency, available_minor: minor, updated_at: at });
  return out.sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
}

/**
 * The sandbox settlement worker's step for a payout. A step that finds the
 * payout already moved (cancelled, settled by a duplicate message) does nothing.
 */
export async function runSettlementStep(deps: PayoutDeps, payoutId: string, step: SettlementStep): Promise<Payout | null> {
  const p = await deps.store.get(payoutId);
  if (!p) return null;
  // A live payout's outcome is the provider's: its order is read back (and sent again only if it never arrived).
  if (p.provider) return step === 'settle' ? resolveLivePayout(deps, p) : step === 'watch' ? watchLivePayout(deps, p) : p;
  const rail = deps.rails.forMode(p.livemode);
  try {
    if (step === 'start' && p.status === 'pending') {
      const started = await transition(deps, p, 'processing');
      await rail?.schedule(payoutId, 'settle');
      return started;
    }
    if (step === 'settle' && p.status === 'processing') {
      if (p.sandbox_outcome === 'fail') return await transition(deps, p, 'failed', { failure_reason: 'invalid_account' });
      const done = await transition(deps, p, 'completed', { completed_at: deps.clock.now().toISOString() });
      if (p.sandbox_outcome === 'complete_then_refund') await rail?.schedule(payoutId, 'refund');
      return done;
    }
    // A redelivered settle of a payout that completed just before a crash still owes its sandbox return.
    if (step === 'settle' && owedSettlementStep(p) === 'refund') {
      await rail?.schedule(payoutId, 'refund');
      return p;
    }
    if (step === 'refund' && p.status === 'completed')
      return await transition(deps, p, 'refunded', { failure_reason: 'returned_by_beneficiary_bank' });
  } catch (e) {
    if (e instanceof WriteConflict) return deps.store.get(payoutId); // lost a race: the winner's state stands
    throw e;
  }
  return p;
}

/** The test balance a new sandbox merchant starts with, per currency (major units). */
export const INITIAL_TEST_BALANCES: Readonly<Partial<Record<CurrencyCode, number>>> = {
  BRL: 100_000,
  PEN: 100_000,
  MXN: 500_000,
  ARS: 10_000_000,
  COP: 100_000_000,
  CLP: 10_000_000,
  USD: 20_000,
};

export async function seedSandboxBalances(deps: Pick<PayoutDeps, 'store' | 'ids' | 'clock'>, merchantId: string) {
  for (const [currency, amount] of Object.entries(INITIAL_TEST_BALANCES)) {
    await deps.store.topUp({
      merchantId,
      livemode: false,
      currency,
      amountMinor: toMinor(amount as number, currency as CurrencyCode) as number,
      entryId: deps.ids.newId('le_'),
      reason: 'initial_test_balance',
      now: deps.clock.now().toISOString(),
    });
  }
}
