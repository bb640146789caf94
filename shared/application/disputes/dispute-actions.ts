/**
 * Submitting and accepting a dispute (DESIGN.md 9.4), each intent before call: the action is committed on the case
 * (pending) before the provider is called, each step the provider took is committed as it is taken (documents
 * supplied, the defense sent), so a retry of the same submission resumes where it stopped and never sends a step
 * twice; a repeat once done sends nothing. The provider's refusal leaves the case needs_response with last_error; no
 * answer leaves it pending for the retry.
 */
import { createHash } from 'node:crypto';
import { deadlinePassed, type DisputeAction, type DisputeCase } from '../../domain/disputes/dispute-case';
import { disputeCaseEvent } from '../../domain/disputes/dispute-events';
import { AppError, type FieldError } from '../../domain/errors';
import type { Principal } from '../access';
import { commitAndPublish, WriteConflict, type Answering } from '../ports';
import { ProviderRejected, ProviderUnavailable, type DefenseDocument, type DefenseReason } from '../providers';
import { type DefenseChannel } from './dispute-defense';
import type { DisputeDeps } from './dispute-deps';
import { getDispute, openCase, reasonsOf } from './disputes';

/** The documents a reason needs that the staging lacks: each required type, and one of each alternative group. */
export function missingDocuments(reason: DefenseReason, staged: readonly string[]): FieldError[] {
  const has = (t: string) => staged.includes(t);
  const missing: FieldError[] = reason.documents
    .filter((d) => d.requirement === 'required' && !has(d.type))
    .map((d) => ({ field: `documents.${d.type}`, message: `is required by ${reason.code}` }));
  for (const group of ['one_or_more', 'alternative_required'] as const) {
    const types = reason.documents.filter((d) => d.requirement === group).map((d) => d.type);
    if (types.length > 0 && !types.some(has))
      missing.push({ field: `documents.${types.join('|')}`, message: `${reason.code} requires one of ${types.join(', ')}` });
  }
  return missing;
}

/** Another request changed the case first: 503 with Retry-After (the contract's for BUSY_RETRY_SAME_KEY); nothing was sent. */
const busy = () =>
  new AppError('BUSY_RETRY_SAME_KEY', 'The dispute changed meanwhile; nothing more was sent: send the request again.', {
    headers: { 'retry-after': '1' },
  });

/** One change of the case, conditional on the revision read (WriteConflict('dispute') when it moved meanwhile). */
async function write(
  deps: DisputeDeps,
  read: DisputeCase,
  patch: Partial<DisputeCase>,
  events: readonly string[] = [],
  answering?: Answering<DisputeCase>,
) {
  const at = deps.clock.now().toISOString();
  const next: DisputeCase = { ...read, ...patch, revision: read.revision + 1, updated_at: at };
  await commitAndPublish(
    deps.publisher,
    deps.disputes.save({
      next,
      readRevision: read.revision,
      events: events.map((t) => disputeCaseEvent(t, next, deps.ids.newId('evt_'), at)),
      now: at,
      done: answering && (await answering(next)),
    }),
  );
  return next;
}

/**
 * A change before any provider step: another request that changed the case first (a concurrent submission resuming the
 * same intent, a notice) is BUSY_RETRY_SAME_KEY, with nothing sent; the retry reads the case as it now is.
 */
const save = (deps: DisputeDeps, read: DisputeCase, patch: Partial<DisputeCase>, events: readonly string[] = []) =>
  write(deps, read, patch, events).catch((e: unknown) => {
    throw e instanceof WriteConflict && e.entity === 'dispute' ? busy() : e;
  });

/** Another action of this dispute is in progress (committed, not finished): it is sent again to finish, not replaced. */
function refuseOtherInProgress(d: DisputeCase, action: DisputeAction['action']) {
  const other = d.last_action;
  if (other?.state === 'pending' && other.action !== action)
    throw new AppError('DISPUTE_NOT_OPEN', `A ${other.action} of this dispute is in progress: send it again to finish it.`, {
      details: [{ field: 'status', message: `has a ${other.action} in progress` }],
    });
}

/**
 * A write after the intent lost to a concurrent request for the same action (both resumed it): that request's
 * outcome once it finished it, else busy (sent again, it resumes).
 */
async function afterConflict(deps: DisputeDeps, disputeId: string, finished: (d: DisputeCase) => boolean, e: unknown) {
  const conflict = e instanceof WriteConflict || (e instanceof AppError && e.code === 'BUSY_RETRY_SAME_KEY');
  if (!conflict) throw e;
  const now = await deps.disputes.get(disputeId);
  if (now && finished(now)) return now;
  throw busy();
}

/**
 * A save after a provider step (the provider has taken it): a notice that moved the case meanwhile (its money, its
 * revision) is no reason to fail what was done. On a conflict the case is read again and, while it still holds this
 * intent, the patch is made to it as it now is; else BUSY (the merchant's resend reads what the other request did).
 */
async function saveTaken(
  deps: DisputeDeps,
  read: DisputeCase,
  patch: (c: DisputeCase) => Partial<DisputeCase>,
  events: readonly string[] = [],
  answering?: Answering<DisputeCase>,
) {
  let current = read;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(deps, current, patch(current), events, answering);
    } catch (e) {
      if (!(e instanceof WriteConflict) || e.entity !== 'dispute' || attempt >= 3) throw e;
      const latest = await deps.disputes.get(read.dispute_id);
      const same = (a: DisputeAction | null | undefined) => a && [a.action, a.state, a.at, a.staging_id].join('|');
      if (!latest || same(latest.last_action) !== same(read.last_action)) throw busy();
      current = latest;
    }
  }
}

/**
 * Runs a provider step; its refusal is committed as the case's last_error (needs_response), no answer is a 502. A
 * refusal that cannot be committed because the case moved meanwhile (a concurrent request finished the submission, so
 * this one's stale step was refused) is BUSY_RETRY_SAME_KEY, not the refusal: the retry answers the case as it is.
 */
async function step<T>(deps: DisputeDeps, kase: () => DisputeCase, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof ProviderRejected) {
      const at = deps.clock.now().toISOString();
      await saveTaken(
        deps,
        kase(),
        (c) => ({
          last_action: c.last_action && { ...c.last_action, state: 'failed' },
          last_error: { code: e.code, message: `The provider refused the ${what}.`, at },
        }),
        ['dispute.updated'],
      ).catch((saving: unknown) => {
        if (saving instanceof AppError && saving.code === 'BUSY_RETRY_SAME_KEY') throw saving;
      });
      throw new AppError(
        'PROVIDER_REJECTED',
        `The provider refused the ${what} (${e.code}); the dispute still needs a response (last_error).`,
      );
    }
    if (e instanceof ProviderUnavailable)
      throw new AppError(
        'PROVIDER_UNAVAILABLE',
        `The provider did not answer the ${what}; it is recorded: send the same request again to resume it.`,
      );
    throw e;
  }
}

async function stagedDocuments(deps: DisputeDeps, d: DisputeCase): Promise<DefenseDocument[]> {
  const staged = d.evidence!;
  return Promise.all(
    staged.documents.map(async (doc, n) => {
      const content = await deps.disputes.readDocument(d.dispute_id, staged.staging_id, n);
      if (content === null) throw new Error(`dispute ${d.dispute_id}: staged document ${n} is gone`);
      return { type: doc.type, mime: doc.mime, contentBase64: content };
    }),
  );
}

/**
 * What an earlier, failed submission left supplied at the provider (what it supplied, and what it had still to remove
 * of the one before): removed by this one before it supplies its own.
 */
const suppliedBefore = (d: DisputeCase) =>
  d.last_action?.action === 'submit' ? [...new Set([...(d.last_action.removing ?? []), ...(d.last_action.supplied ?? [])])] : [];

/**
 * The request key of a submission's defense: one per submission (its dispute, staging and the instant its intent was
 * committed), so each retry of it is the same request to the provider and a later submission a new one.
 */
const defenseKeyOf = (d: DisputeCase, a: DisputeAction) =>
  `dispute-defend-${createHash('sha256')
    .update(`${d.dispute_id}|${a.staging_id ?? ''}|${a.at}`)
    .digest('hex')
    .slice(0, 40)}`;

/**
 * The provider's no to a removal: the document is not there (its removal's answer lost before a retry, or removed at the
 * provider by hand), which is what the removal wanted; were the dispute closed to changes, the supply or the defense
 * after it is refused and says so. Not an error, so a document gone at the provider never blocks every later submission.
 */
const removedAlready = (e: unknown) => {
  if (e instanceof ProviderRejected) return;
  throw e;
};

/**
 * Submits the staged evidence: checked (a defense reason the provider still lists, every document it requires, the
 * deadline), the intent committed, then each provider step once: documents supplied (a type supplied by an earlier
 * failed submission deleted first, so the new one replaces it), the defense sent; under_review with dispute.updated.
 */
export async function submitDispute(
  deps: DisputeDeps,
  principal: Principal,
  disputeId: string,
  answering?: Answering<DisputeCase>,
): Promise<DisputeCase> {
  const already = await getDispute(deps, principal, disputeId);
  // A repeat of a submission that went through sends nothing more.
  if (already.status === 'under_review' && already.last_action?.action === 'submit' && already.last_action.state === 'done') return already;
  const { dispute, channel } = await openCase(deps, already);
  refuseOtherInProgress(dispute, 'submit');
  if (deadlinePassed(dispute, deps.clock.now()))
    throw new AppError('DISPUTE_DEADLINE_PASSED', `The deadline was ${dispute.evidence_due_by}.`);
  const staged = dispute.evidence;
  if (!staged)
    throw new AppError('VALIDATION_ERROR', 'Stage evidence first (POST .../evidence).', {
      details: [{ field: 'evidence', message: 'is not staged' }],
    });
  if (channel.needsText && !staged.text)
    throw new AppError('VALIDATION_ERROR', 'A PIX MED defense is its text.', {
      details: [{ field: 'evidence.text', message: 'is required' }],
    });
  if (channel.takesDocuments) {
    const reasons = await reasonsOf(channel);
    const reason = reasons.find((r) => r.code === staged.defense_reason);
    if (!reason)
      throw new AppError('VALIDATION_ERROR', 'The staged defense reason is not listed for this dispute now.', {
        details: [{ field: 'evidence.defense_reason', message: `must be one of ${reasons.map((r) => r.code).join(', ') || 'none'}` }],
      });
    const missing = missingDocuments(
      reason,
      staged.documents.map((d) => d.type),
    );
    if (missing.length > 0)
      throw new AppError('VALIDATION_ERROR', `${missing.map((m) => `${m.field} ${m.message}`).join('; ')}.`, { details: missing });
  }
  // Resume this staging's pending submission, or begin one.
  const resuming =
    dispute.last_action?.action === 'submit' &&
    dispute.last_action.state === 'pending' &&
    dispute.last_action.staging_id === staged.staging_id;
  const at = deps.clock.now().toISOString();
  const intent: DisputeAction = resuming
    ? dispute.last_action!
    : {
        action: 'submit',
        state: 'pending',
        at,
        staging_id: staged.staging_id,
        supplied: [],
        removing: channel.takesDocuments ? suppliedBefore(dispute) : [],
        defended: false,
      };
  let kase = resuming ? dispute : await save(deps, dispute, { last_action: intent, last_error: null });
  const current = () => kase;
  let done: DisputeCase;
  try {
    const removing = intent.removing ?? [];
    if (removing.length > 0) {
      // What the failed submission before left supplied (a retry removes them all again: one already gone is no error).
      for (const type of removing) await step(deps, current, 'document removal', () => channel.remove(type).catch(removedAlready));
      kase = await saveTaken(deps, kase, (c) => ({ last_action: { ...c.last_action!, removing: [] } }));
    }
    if (channel.takesDocuments && (intent.supplied ?? []).length < staged.documents.length) {
      const types = staged.documents.map((d) => d.type);
      const documents = await stagedDocuments(deps, kase);
      await step(deps, current, 'documents', () => channel.supply(documents));
      kase = await saveTaken(deps, kase, (c) => ({ last_action: { ...c.last_action!, supplied: types } }));
    }
    if (!kase.last_action?.defended) {
      const key = defenseKeyOf(kase, intent);
      await step(deps, current, 'defense', () => channel.defend(staged.defense_reason, staged.text, key));
    }
    done = await saveTaken(
      deps,
      kase,
      (c) => ({
        last_action: { ...c.last_action!, defended: true, state: 'done' },
        submitted_at: deps.clock.now().toISOString(),
        // A notice may have decided it meanwhile: a decided case stays as decided.
        status: c.status === 'needs_response' ? 'under_review' : c.status,
        last_error: null,
      }),
      ['dispute.updated'],
      answering,
    );
  } catch (e) {
    return afterConflict(deps, disputeId, (d) => d.last_action?.action === 'submit' && d.last_action.state === 'done', e);
  }
  if (!done.livemode && done.status === 'under_review') await deps.scheduleSandboxDecision(done.dispute_id);
  return done;
}

/** Accepts the dispute (the merchant gives up the amount): the intent committed, the provider told, accepted. */
export async function acceptDispute(
  deps: DisputeDeps,
  principal: Principal,
  disputeId: string,
  answering?: Answering<DisputeCase>,
): Promise<DisputeCase> {
  const already = await getDispute(deps, principal, disputeId);
  if (already.status === 'accepted') return already;
  const { dispute, channel } = await openCase(deps, already);
  refuseOtherInProgress(dispute, 'accept');
  const resuming = dispute.last_action?.action === 'accept' && dispute.last_action.state === 'pending';
  const kase = resuming
    ? dispute
    : await save(deps, dispute, {
        last_action: { action: 'accept', state: 'pending', at: deps.clock.now().toISOString() },
        last_error: null,
      });
  await step(
    deps,
    () => kase,
    'acceptance',
    () => channel.accept(),
  );
  const at = deps.clock.now().toISOString();
  let done: DisputeCase;
  try {
    done = await saveTaken(
      deps,
      kase,
      // Won meanwhile (a reversal came): it stays won, as caseStatusOf has it; lost or open: accepted.
      (c) => ({
        last_action: { ...c.last_action!, state: 'done' },
        accepted_at: at,
        status: c.status === 'won' ? 'won' : 'accepted',
        closed_at: c.closed_at ?? at,
        last_error: null,
      }),
      ['dispute.updated'],
      answering,
    );
  } catch (e) {
    return afterConflict(deps, disputeId, (d) => d.status === 'accepted', e);
  }
  // A test PIX MED accepted is returned to the payer by the sandbox's PSP (a chargeback's amount has already left).
  if (!done.livemode && done.kind === 'pix_med') await deps.scheduleSandboxDecision(done.dispute_id);
  return done;
}

export type { DefenseChannel };
