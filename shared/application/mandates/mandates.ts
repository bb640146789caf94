/**
 * Mandate use cases (DESIGN.md 9.3): create (the approval the payer sees), read, list and cancel; the sandbox's payer is
 * in sandbox-mandates.ts. Each change is one conditional write with its events; a live mandate's intent is committed
 * before its provider is called.
 */
import { modeOf } from '../../domain/access';
import { AppError } from '../../domain/errors';
import { maskDocument } from '../../domain/documents';
import {
  addDays,
  APPROVAL_DAYS,
  canMandateTransition,
  sandboxMandateOutcome,
  type Mandate,
  type MandateApproval,
} from '../../domain/mandates/mandate';
import type { CreateMandateInput, ListMandatesQuery } from '../../domain/mandates/mandate.schemas';
import { buildRecurrenceBrCode } from '../../domain/payments/pix-brcode';
import type { Principal } from '../access';
import { commitAndPublish, WriteConflict, type Answering, type MandateListQuery } from '../ports';
import type { MandateDeps } from './mandate-deps';
import { checkMandateRequest } from './mandate-rules';
import { cancelLiveMandate, liveMandateStarter } from './mandates-live';
import { moveMandate } from './mandate-moves';

export { moveMandate } from './mandate-moves';

/** Where the sandbox says a recurrence lives (it is never fetched: no bank reads a sandbox QR). */
const SANDBOX_RECURRENCE_HOST = 'sandbox.pix.invalid/rec';
const SANDBOX_CITY = 'SAO PAULO';

/** A mandate of this merchant and mode, or MANDATE_NOT_FOUND (another merchant's or mode's id included). */
export async function getMandate(deps: Pick<MandateDeps, 'mandates'>, principal: Principal, mandateId: string): Promise<Mandate> {
  const m = await deps.mandates.get(mandateId);
  if (!m || m.merchant_id !== principal.merchant.merchant_id || m.livemode !== principal.livemode) throw new AppError('MANDATE_NOT_FOUND');
  return m;
}

/** One page of the merchant's mandates, newest first: offset or starting_after (a mandate of this merchant and mode). */
export async function listMandates(deps: Pick<MandateDeps, 'mandates'>, principal: Principal, q: ListMandatesQuery) {
  const refuse = (message: string) =>
    new AppError('VALIDATION_ERROR', `starting_after ${message}.`, { details: [{ field: 'starting_after', message }] });
  if (q.starting_after && q.offset > 0) throw refuse('cannot be combined with offset');
  const after = q.starting_after ? await getMandate(deps, principal, q.starting_after).catch(() => null) : undefined;
  if (after === null) throw refuse('must be a mandate of yours');
  const query: MandateListQuery = {
    status: q.status,
    from: q.from_date,
    to: q.to_date,
    limit: q.limit,
    offset: q.offset,
    ...(after ? { startingAfter: after } : {}),
  };
  return deps.mandates.list(principal.merchant.merchant_id, modeOf(principal.livemode), query);
}

function sandboxApproval(deps: MandateDeps, principal: Principal, input: CreateMandateInput, mandateId: string): MandateApproval {
  if (input.method === 'card') return { type: 'redirect', url: `${deps.baseUrl()}/sandbox/mandate/${mandateId}` };
  if (input.payer) return { type: 'pix_request' };
  const location = `${SANDBOX_RECURRENCE_HOST}/${mandateId}`;
  return {
    type: 'pix_qr',
    pix_code: buildRecurrenceBrCode({ merchantName: principal.merchant.name, merchantCity: SANDBOX_CITY, location }),
  };
}

/**
 * A mandate: checked, committed pending_approval (with its keyed answer), then shown to the payer. The sandbox
 * decides by the customer's document a few seconds later; a live one is set up at its provider after the commit.
 */
export async function createMandate(
  deps: MandateDeps,
  principal: Principal,
  input: CreateMandateInput,
  mandateId: string,
  answering?: Answering<Mandate>,
): Promise<Mandate> {
  const now = deps.clock.now();
  const at = now.toISOString();
  const { amountMinor, maxMinor } = checkMandateRequest(principal.merchant, input, now);
  const live = principal.livemode ? await liveMandateStarter(deps, input) : null;
  const approvalExpiresAt = new Date(`${addDays(at.slice(0, 10), APPROVAL_DAYS[input.method])}T${at.slice(11)}`).toISOString();
  const mandate: Mandate = {
    mandate_id: mandateId,
    merchant_id: principal.merchant.merchant_id,
    livemode: principal.livemode,
    method: input.method,
    country: input.country,
    currency: input.currency,
    status: 'pending_approval',
    description: input.description,
    customer: {
      name: input.customer.name,
      email: input.customer.email,
      document_masked: maskDocument(input.customer.document),
      phone: input.customer.phone ?? null,
    },
    frequency: input.frequency,
    amount_minor: amountMinor,
    max_amount_minor: maxMinor,
    start_date: input.start_date,
    end_date: input.end_date ?? null,
    retry_policy: input.retry_policy,
    payer: input.payer
      ? {
          bank_ispb: input.payer.bank_ispb,
          agency: input.payer.agency ?? null,
          account_masked: input.payer.account ? `****${input.payer.account.slice(-4)}` : null,
        }
      : null,
    approval: live ? live.approval(mandateId) : sandboxApproval(deps, principal, input, mandateId),
    approval_expires_at: approvalExpiresAt,
    success_url: input.success_url ?? null,
    cancel_url: input.cancel_url ?? null,
    notification_url: input.notification_url ?? null,
    reference_id: input.reference_id ?? null,
    metadata: input.metadata,
    card: null,
    sandbox_outcome: principal.livemode ? null : sandboxMandateOutcome(input.customer.document),
    ...(live ? live.link(mandateId, at, approvalExpiresAt) : {}),
    charges_count: 0,
    approved_at: null,
    ended_at: null,
    created_at: at,
    updated_at: at,
  };
  try {
    // A live mandate whose provider must still answer records the keyed answer once it did (mandates-live.ts).
    const done = live?.answersLater ? undefined : await answering?.(mandate);
    await commitAndPublish(deps.publisher, deps.mandates.create({ mandate, events: [], now: at, done }));
  } catch (e) {
    if (!(e instanceof WriteConflict) || e.entity !== 'mandate') throw e;
    // A keyed retry after a crash: the mandate of this id is returned as stored; a live one whose provider never
    // answered (a lost answer, a crash before its commit) is started again: the provider resumes what it holds for it.
    const stored = await getMandate(deps, principal, mandateId);
    if (live?.answersLater && stored.status === 'pending_approval' && stored.approval === null)
      return live.start(deps, stored, input, answering);
    return stored;
  }
  if (live) return live.start(deps, mandate, input, answering);
  await deps.scheduleDecision(mandateId);
  return mandate;
}

/** The merchant cancels: the provider first (a recurrence or stored card ended there), then the mandate, with its event. */
export async function cancelMandate(
  deps: MandateDeps,
  principal: Principal,
  mandateId: string,
  answering?: Answering<Mandate>,
): Promise<Mandate> {
  for (let round = 0; round < 3; round++) {
    const m = await getMandate(deps, principal, mandateId);
    if (!canMandateTransition(m.status, 'cancelled'))
      throw new AppError('MANDATE_STATE_CONFLICT', `A ${m.status} mandate cannot be cancelled.`);
    if (m.livemode) await cancelLiveMandate(deps, m);
    const at = deps.clock.now().toISOString();
    const patch: Partial<Mandate> = { cancelled_by: 'merchant', ended_at: at, next_check_at: null };
    const done = await answering?.({ ...m, ...patch, status: 'cancelled', updated_at: at });
    const moved = await moveMandate(deps, m, 'cancelled', patch, done);
    if (moved) return moved;
  }
  throw new AppError('MANDATE_STATE_CONFLICT', 'The mandate kept changing; read it and try again.');
}
