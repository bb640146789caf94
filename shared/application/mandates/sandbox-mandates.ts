/**
 * Test mode's payer (DESIGN.md 9.3): the decision by customer document a few seconds after a mandate is made, the
 * simulator (POST /api/v1/sandbox/mandates/{id}/simulate) that produces every mandate event, and the sandbox approval
 * page (/sandbox/mandate/{id}). Every move is moveMandate's one conditional write with its event.
 */
import { AppError } from '../../domain/errors';
import { mandateEndsAt, SANDBOX_MANDATE_MOVES, type Mandate, type SandboxMandateOutcome } from '../../domain/mandates/mandate';
import type { Principal } from '../access';
import type { Answering } from '../ports';
import type { MandateDeps } from './mandate-deps';
import { moveMandate } from './mandate-moves';
import { getMandate } from './mandates';

/** The card the sandbox payer approves with (the sandbox's approving test card). */
const SANDBOX_CARD = { brand: 'visa', last_four: '4242' } as const;

/** What each simulated outcome records beside the status. */
function patchFor(m: Mandate, outcome: SandboxMandateOutcome, at: string): Partial<Mandate> {
  switch (outcome) {
    case 'approve':
      return {
        approved_at: at,
        ...(m.method === 'card' ? { card: SANDBOX_CARD } : {}),
        // Read by the job the day after its end date, to expire (as a live mandate does).
        ...(m.end_date ? { next_check_at: mandateEndsAt(m.end_date) } : {}),
      };
    case 'reject':
      return { failure_code: 'payer_rejected', ended_at: at };
    case 'expire':
      return { ended_at: at };
    case 'payer_cancel':
      return { cancelled_by: 'payer', ended_at: at };
  }
}

/** The sandbox payer's decision (DESIGN.md 9.3): rejected for 00000000272, none for 00000000434, else approved. */
export async function decideSandboxMandate(deps: MandateDeps, mandateId: string): Promise<void> {
  const m = await deps.mandates.get(mandateId);
  if (!m || m.livemode || m.status !== 'pending_approval' || m.sandbox_outcome === 'hold') return;
  const outcome = m.sandbox_outcome === 'reject' ? 'reject' : 'approve';
  await moveMandate(deps, m, SANDBOX_MANDATE_MOVES[outcome].to, patchFor(m, outcome, deps.clock.now().toISOString()));
}

/**
 * A test mandate of this merchant moved as the payer would: approve, reject or expire a pending_approval one, or
 * cancel an active one from the bank app (cancelled_by payer). Any other status: MANDATE_STATE_CONFLICT.
 */
export async function simulateSandboxMandate(
  deps: MandateDeps,
  principal: Principal,
  mandateId: string,
  outcome: SandboxMandateOutcome,
  answering?: Answering<Mandate>,
): Promise<Mandate> {
  const { from, to } = SANDBOX_MANDATE_MOVES[outcome];
  for (let round = 0; round < 3; round++) {
    const m = await getMandate(deps, principal, mandateId);
    if (m.livemode) throw new AppError('MANDATE_NOT_FOUND');
    if (m.status !== from)
      throw new AppError('MANDATE_STATE_CONFLICT', `The mandate is ${m.status}: ${outcome} acts on a ${from} mandate.`);
    const at = deps.clock.now().toISOString();
    const patch = patchFor(m, outcome, at);
    const done = await answering?.({ ...m, ...patch, status: to, updated_at: at });
    const moved = await moveMandate(deps, m, to, patch, done);
    if (moved) return moved;
  }
  throw new AppError('MANDATE_STATE_CONFLICT', 'The mandate kept changing; read it and try again.');
}

/** A test mandate for its sandbox page (no key: the unguessable id authorises it); a live or unknown one is not found. */
export async function sandboxMandate(deps: Pick<MandateDeps, 'mandates'>, mandateId: string): Promise<Mandate> {
  const m = await deps.mandates.get(mandateId);
  if (!m || m.livemode) throw new AppError('MANDATE_NOT_FOUND');
  return m;
}

/** Where the payer goes after the page: success_url when active, cancel_url when it ended, else the page itself. */
export function mandateReturnUrl(deps: Pick<MandateDeps, 'baseUrl'>, m: Mandate): string {
  const target = m.status === 'active' ? m.success_url : m.status === 'pending_approval' ? null : m.cancel_url;
  if (!target) return `${deps.baseUrl()}/sandbox/mandate/${m.mandate_id}`;
  const url = new URL(target);
  url.searchParams.set('mandate_id', m.mandate_id);
  url.searchParams.set('status', m.status);
  return url.toString();
}

/**
 * The sandbox page's Approve / Reject form: a pending mandate moves (mandate.approved or mandate.rejected); one the
 * scheduled decision (or the simulator) already decided keeps its status. Either way the payer goes where the
 * mandate's status says.
 */
export async function decideFromPage(deps: MandateDeps, mandateId: string, approve: boolean): Promise<{ mandate: Mandate; next: string }> {
  let m = await sandboxMandate(deps, mandateId);
  if (m.status === 'pending_approval') {
    const outcome = approve ? 'approve' : 'reject';
    const moved = await moveMandate(deps, m, SANDBOX_MANDATE_MOVES[outcome].to, patchFor(m, outcome, deps.clock.now().toISOString()));
    m = moved ?? (await sandboxMandate(deps, mandateId));
  }
  return { mandate: m, next: mandateReturnUrl(deps, m) };
}
