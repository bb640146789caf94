/**
 * Submitting and accepting a dispute (DESIGN.md 9.4), each intent before call: the action is committed on the case
 * (pending) before the provider is called, each step the provider took is committed as it is taken (documents
 * supplied, the defense sent), so a retry of the same submission resumes where it stopped and never sends a step
 * twice; a repeat once done sends nothing. The provider's refusal leaves the case needs_response with last_error; no
 * answer leaves it pending for the retry.
 */
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

async function save(
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

const busy = () => new AppError('BUSY_RETRY_SAME_KEY', 'The dispute changed meanwhile; nothing more was sent: send the request again.');

/** Runs a provider step; its refusal is committed as the case's last_error (needs_response), no answer is a 502. */
async function step<T>(deps: DisputeDeps, kase: () => DisputeCase, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof ProviderRejected) {
      const read = kase();
      const at = deps.clock.now().toISOString();
      await save(
        deps,
        read,
        {
          last_action: read.last_action && { ...read.last_action, state: 'failed' },
          last_error: { code: e.code, message: `The provider refused the ${what}.`, at },
        },
        ['dispute.updated'],
      ).catch(() => undefined);
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

/** What an earlier, failed submission left supplied at the provider: replaced or removed by this one. */
const suppliedBefore = (d: DisputeCase) => (d.last_action?.action === 'submit' ? (d.last_action.supplied ?? []) : []);

/** A submission's name at the provider: its staging and when it began (a retry resumes it under the same name). */
const submissionOf = (a: DisputeAction) => `${a.staging_id ?? ''}@${a.at}`;

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
  const { dispute, channel } = await openCase(deps, principal, disputeId);
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
        removing: suppliedBefore(dispute),
        defended: false,
      };
  let kase = resuming
    ? dispute
    : await save(deps, dispute, { last_action: intent, last_error: null }).catch((e) => {
        throw e instanceof WriteConflict ? busy() : e;
      });
  const current = () => kase;
  const submission = submissionOf(intent);
  if (channel.takesDocuments && (intent.supplied ?? []).length < staged.documents.length) {
    const types = staged.documents.map((d) => d.type);
    // Removed again on a retry (the intent keeps the list): each removal is the same request at the provider.
    for (const type of intent.removing ?? []) await step(deps, current, 'document removal', () => channel.remove(type, submission));
    const documents = await stagedDocuments(deps, kase);
    await step(deps, current, 'documents', () => channel.supply(documents));
    kase = await save(deps, kase, { last_action: { ...kase.last_action!, supplied: types } });
  }
  if (!kase.last_action?.defended) {
    await step(deps, current, 'defense', () => channel.defend(staged.defense_reason, staged.text, submission));
  }
  const done = await save(
    deps,
    kase,
    {
      last_action: { ...kase.last_action!, defended: true, state: 'done' },
      submitted_at: deps.clock.now().toISOString(),
      status: 'under_review',
      last_error: null,
    },
    ['dispute.updated'],
    answering,
  );
  if (!done.livemode) await deps.scheduleSandboxDecision(done.dispute_id);
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
  const { dispute, channel } = await openCase(deps, principal, disputeId);
  const resuming = dispute.last_action?.action === 'accept' && dispute.last_action.state === 'pending';
  const kase = resuming
    ? dispute
    : await save(deps, dispute, {
        last_action: { action: 'accept', state: 'pending', at: deps.clock.now().toISOString() },
        last_error: null,
      }).catch((e) => {
        throw e instanceof WriteConflict ? busy() : e;
      });
  await step(
    deps,
    () => kase,
    'acceptance',
    () => channel.accept(),
  );
  const at = deps.clock.now().toISOString();
  return save(
    deps,
    kase,
    { last_action: { ...kase.last_action!, state: 'done' }, accepted_at: at, status: 'accepted', closed_at: at, last_error: null },
    ['dispute.updated'],
    answering,
  );
}

export type { DefenseChannel };
