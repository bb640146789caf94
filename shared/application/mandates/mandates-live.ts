/**
 * Live mandates (DESIGN.md 9.3): a Pix Automático recurrence at the API Pix PSP (intent committed, then `create`;
 * what the PSP holds read back by the reconciliation job and on each callback) and, later, a card stored at the
 * acquirer. Callbacks are never trusted: each names what to read back.
 */
import { AppError } from '../../domain/errors';
import { mandateEndsAt, type Mandate, type MandateApproval } from '../../domain/mandates/mandate';
import type { CreateMandateInput } from '../../domain/mandates/mandate.schemas';
import type { Answering } from '../ports';
import {
  ProviderRejected,
  ProviderUnavailable,
  type PixMandateConnector,
  type PixMandateCreated,
  type PixMandateRail,
  type PixMandateState,
} from '../providers';
import type { MandateDeps } from './mandate-deps';
import { moveMandate } from './mandate-moves';
import { cardMandatePaths, disableStoredCard, reconcileCardMandate, storedCards } from './card-mandates';

/** How often a live mandate is read back: while the payer decides, and once active (a cancellation in the bank app). */
const PENDING_CHECK_SECONDS = 15 * 60;
const ACTIVE_CHECK_SECONDS = 24 * 3600;

const later = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

export interface LiveMandateStarter {
  /** The approval shown before the provider answered (null: the provider's QR or request follows). */
  approval(mandateId: string): MandateApproval | null;
  /** The provider link committed with the intent. */
  link(mandateId: string, at: string, approvalExpiresAt: string): Pick<Mandate, 'provider' | 'next_check_at'>;
  /** The keyed answer is recorded once the provider answered (with what it answered). */
  readonly answersLater: boolean;
  start(deps: MandateDeps, m: Mandate, input: CreateMandateInput, answering?: Answering<Mandate>): Promise<Mandate>;
}

async function pixMandates(deps: MandateDeps): Promise<PixMandateRail | null> {
  return (await deps.connectors.forMode(true))?.pixMandates ?? null;
}

/** The live start of a mandate of this method, or METHOD_NOT_AVAILABLE when its provider is not configured. */
export async function liveMandateStarter(deps: MandateDeps, input: CreateMandateInput): Promise<LiveMandateStarter> {
  if (input.method === 'pix_automatico') {
    // A push request names the payer's account at their bank (API Pix's solicrec requires it): refused before anything is written.
    if (input.payer && !input.payer.account)
      throw new AppError('VALIDATION_ERROR', 'Invalid request parameters: payer.account.', {
        details: [{ field: 'payer.account', message: 'is required for a push request to the payer’s bank (Jornada 1)' }],
      });
    const rail = await pixMandates(deps);
    if (!rail)
      throw new AppError(
        'METHOD_NOT_AVAILABLE',
        'Pix Automático is not offered: no PSP with a receiving account (recebedor) is configured.',
      );
    return pixStarter(rail.mandates);
  }
  const stored = await storedCards(deps);
  if (!stored) throw new AppError('METHOD_NOT_AVAILABLE', 'Cards on file are not offered: no acquirer that stores cards is configured.');
  return {
    // The payer approves on our page (a zero-value authorisation with 3-D Secure stores the card): nothing to call yet.
    approval: (mandateId) => ({ type: 'redirect', url: `${deps.baseUrl()}${cardMandatePaths(stored.provider.name, mandateId).approve}` }),
    // Read by the job at its approval deadline: a payer who never finished the page leaves it to expire.
    link: (mandateId, _at, approvalExpiresAt) => ({
      provider: { name: stored.provider.name, reference: stored.provider.reference(mandateId), provider_mandate_id: null, details: {} },
      next_check_at: approvalExpiresAt,
    }),
    answersLater: false,
    start: async (_deps, m) => m,
  };
}

const approvalOf = (created: PixMandateCreated): MandateApproval =>
  created.approval.type === 'pix_qr' ? { type: 'pix_qr', pix_code: created.approval.pixCode } : { type: 'pix_request' };

function pixStarter(pix: PixMandateConnector): LiveMandateStarter {
  return {
    approval: () => null,
    link: (mandateId, at) => ({
      provider: { name: pix.provider.name, reference: pix.provider.reference(mandateId), provider_mandate_id: null, details: {} },
      next_check_at: later(new Date(at), 60),
    }),
    answersLater: true,
    async start(deps, m, input, answering) {
      const created = await sendCreate(deps, pix, m, input);
      const patch: Partial<Mandate> = {
        provider: { ...m.provider!, provider_mandate_id: created.providerMandateId },
        approval: approvalOf(created),
        next_check_at: later(deps.clock.now(), PENDING_CHECK_SECONDS),
      };
      const at = deps.clock.now().toISOString();
      const next: Mandate = { ...m, ...patch, updated_at: at };
      await deps.mandates.transition({ mandate: m, to: m.status, patch, events: [], now: at, done: await answering?.(next) });
      return next;
    },
  };
}

/** The recurrence request, derived from the mandate alone: every send for one mandate is the same request. */
function recurrenceRequest(m: Mandate, input: Pick<CreateMandateInput, 'customer' | 'payer'>) {
  return {
    mandateId: m.mandate_id,
    reference: m.provider!.reference,
    // Digits only, as API Pix names a CPF or CNPJ (a document may be typed with its punctuation).
    debtor: { document: input.customer.document.replace(/\D/g, ''), name: input.customer.name },
    description: m.description,
    frequency: m.frequency,
    startDate: m.start_date,
    ...(m.end_date ? { endDate: m.end_date } : {}),
    ...(m.amount_minor !== null ? { amountMinor: m.amount_minor } : {}),
    retryPolicy: m.retry_policy,
    ...(input.payer ? { payer: { ispb: input.payer.bank_ispb, agency: input.payer.agency, account: input.payer.account } } : {}),
    approvalExpiresAt: m.approval_expires_at,
    createdAt: m.created_at,
  };
}

async function sendCreate(deps: MandateDeps, pix: PixMandateConnector, m: Mandate, input: CreateMandateInput): Promise<PixMandateCreated> {
  try {
    return await pix.create(recurrenceRequest(m, input));
  } catch (e) {
    if (e instanceof ProviderUnavailable)
      throw new AppError(
        'PROVIDER_UNAVAILABLE',
        `The PSP did not answer: mandate ${m.mandate_id} is recorded pending_approval and the reconciliation job reads it back.`,
      );
    if (e instanceof ProviderRejected) {
      await moveMandate(deps, m, 'rejected', {
        failure_code: 'provider_rejected',
        ended_at: deps.clock.now().toISOString(),
        next_check_at: null,
      });
      throw new AppError('PROVIDER_REJECTED', `The PSP refused the recurrence (${e.code}); mandate ${m.mandate_id} is rejected.`);
    }
    throw e;
  }
}

/** The merchant's cancel at the provider (before the mandate is written cancelled): a recurrence cancelled there. */
export async function cancelLiveMandate(deps: MandateDeps, m: Mandate): Promise<void> {
  if (m.method === 'card') return disableStoredCard(deps, m);
  const id = m.provider?.provider_mandate_id;
  if (m.method !== 'pix_automatico') return;
  // The PSP has not told us its recurrence yet (a create without an answer): nothing could be cancelled there.
  if (!id)
    throw new AppError(
      'MANDATE_STATE_CONFLICT',
      'The PSP has not confirmed the recurrence yet: read the mandate and cancel it again shortly.',
    );
  const rail = await pixMandates(deps);
  if (!rail) throw new AppError('PROVIDER_UNAVAILABLE', 'No Pix Automático PSP is configured to cancel the recurrence at.');
  try {
    await rail.mandates.cancel(id);
  } catch (e) {
    if (e instanceof ProviderUnavailable || e instanceof ProviderRejected)
      throw new AppError('PROVIDER_UNAVAILABLE', `The PSP did not cancel the recurrence (${e.message}); nothing changed: try again.`);
    throw e;
  }
}

/** What a read-back of the recurrence means for the mandate: its status follows the PSP's. */
export async function applyMandateState(deps: MandateDeps, m: Mandate, state: PixMandateState): Promise<'moved' | 'waiting'> {
  const now = deps.clock.now();
  const at = now.toISOString();
  const provider = (id: string) => ({ provider: { ...m.provider!, provider_mandate_id: id } });
  switch (state.kind) {
    case 'active':
      if (m.status === 'active') break;
      return (await moveMandate(deps, m, 'active', {
        ...provider(state.providerMandateId),
        approved_at: state.at,
        next_check_at: later(now, ACTIVE_CHECK_SECONDS),
      }))
        ? 'moved'
        : 'waiting';
    case 'rejected':
    case 'expired':
    case 'cancelled': {
      const to = state.kind;
      const patch: Partial<Mandate> = {
        ...provider(state.providerMandateId),
        ended_at: state.at,
        next_check_at: null,
        ...(state.kind === 'cancelled' ? { cancelled_by: state.by === 'receiver' ? ('merchant' as const) : state.by } : {}),
        ...(state.kind === 'rejected' ? { failure_code: 'payer_rejected' } : {}),
      };
      return (await moveMandate(deps, m, to, patch)) ? 'moved' : 'waiting';
    }
    case 'pending':
    case 'not_found':
      break;
  }
  const pending = m.status === 'pending_approval';
  const patch: Partial<Mandate> = {
    next_check_at: later(now, pending ? PENDING_CHECK_SECONDS : ACTIVE_CHECK_SECONDS),
    ...(state.kind === 'pending' && !m.provider?.provider_mandate_id ? provider(state.providerMandateId) : {}),
  };
  await deps.mandates.transition({ mandate: m, to: m.status, patch, events: [], now: at }).catch(() => undefined);
  return 'waiting';
}

/**
 * The job's step for one due mandate: read back what the PSP holds and follow it. A pending one past its approval
 * deadline is cancelled at the PSP, then expires. A create that never reached the PSP is not sent again (the payer's
 * document is not kept to rebuild the same request): the mandate expires at its deadline, and the merchant was told
 * 502 at the create.
 */
export async function reconcileMandate(
  deps: MandateDeps,
  mandateId: string,
  now: Date = deps.clock.now(),
): Promise<'moved' | 'waiting' | 'closed'> {
  const m = await deps.mandates.get(mandateId);
  if (m?.livemode && m.method === 'card') return reconcileCardMandate(deps, m, now);
  // A test mandate on the work partitions: an active one past its end date expires (nothing to read back).
  if (m && !m.livemode) {
    if (m.status !== 'active' || !m.end_date || Date.parse(mandateEndsAt(m.end_date)) > now.getTime()) return 'closed';
    return (await moveMandate(deps, m, 'expired', { ended_at: now.toISOString(), next_check_at: null })) ? 'moved' : 'waiting';
  }
  const rail = await pixMandates(deps);
  if (!m || !m.livemode || !m.provider || !rail || m.method !== 'pix_automatico') return 'closed';
  if (m.status !== 'pending_approval' && m.status !== 'active') return 'closed';
  const state = await rail.mandates.get({
    ...(m.provider.provider_mandate_id ? { providerMandateId: m.provider.provider_mandate_id } : {}),
    reference: m.provider.reference,
    createdAt: m.created_at,
  });
  if (
    m.status === 'pending_approval' &&
    (state.kind === 'pending' || state.kind === 'not_found') &&
    Date.parse(m.approval_expires_at) <= now.getTime()
  ) {
    if (state.kind === 'pending') await rail.mandates.cancel(state.providerMandateId);
    return (await moveMandate(deps, m, 'expired', { ended_at: now.toISOString(), next_check_at: null })) ? 'moved' : 'waiting';
  }
  return applyMandateState(deps, m, state);
}

/**
 * Mandates whose read-back is due at `now` (the job's schedule time, as for payments), each read back (a failure
 * leaves it for the next run).
 */
export async function reconcileDueMandates(
  deps: MandateDeps,
  now: Date = deps.clock.now(),
  limit = 100,
): Promise<{ checked: number; moved: number; failed: number }> {
  const result = { checked: 0, moved: 0, failed: 0 };
  for (const id of await deps.mandates.dueForCheck(now.toISOString(), limit)) {
    result.checked++;
    try {
      if ((await reconcileMandate(deps, id, now)) === 'moved') result.moved++;
    } catch {
      result.failed++;
    }
  }
  return result;
}
