/**
 * Dispute use cases (DESIGN.md 9.4): read and list a merchant's disputes, and stage evidence. Submitting and accepting
 * (which reach the provider) are in dispute-actions.ts. Every change is one write conditional on the revision read.
 */
import { createHash } from 'node:crypto';
import { modeOf } from '../../domain/access';
import { deadlinePassed, type DisputeCase, type StagedDocument } from '../../domain/disputes/dispute-case';
import type { EvidenceInput, ListDisputesQuery } from '../../domain/disputes/dispute.schemas';
import { defenseDocumentProblem } from '../../domain/disputes/evidence';
import { AppError, type FieldError } from '../../domain/errors';
import type { Principal } from '../access';
import { WriteConflict, type Answering, type DisputeListQuery } from '../ports';
import type { DefenseReason } from '../providers';
import { ProviderRejected, ProviderUnavailable } from '../providers';
import { defenseChannelOf, type DefenseChannel } from './dispute-defense';
import type { DisputeDeps } from './dispute-deps';

const invalid = (details: FieldError[]) =>
  new AppError('VALIDATION_ERROR', `${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`, { details });

/** A dispute of this merchant and mode, or DISPUTE_NOT_FOUND (another merchant's or mode's id included). */
export async function getDispute(deps: Pick<DisputeDeps, 'disputes'>, principal: Principal, disputeId: string): Promise<DisputeCase> {
  const d = await deps.disputes.get(disputeId);
  if (!d || d.merchant_id !== principal.merchant.merchant_id || d.livemode !== principal.livemode) throw new AppError('DISPUTE_NOT_FOUND');
  return d;
}

/** The reasons the provider lists now: PROVIDER_UNAVAILABLE when it does not answer (nothing is guessed). */
export async function reasonsOf(channel: DefenseChannel): Promise<readonly DefenseReason[]> {
  try {
    return await channel.reasons();
  } catch (e) {
    if (e instanceof ProviderUnavailable || e instanceof ProviderRejected)
      throw new AppError('PROVIDER_UNAVAILABLE', `The provider did not list the defense reasons (${e.message}); try again.`);
    throw e;
  }
}

/**
 * One dispute with the defense reasons its provider lists for it now (while it needs a response and can be fought).
 * A provider that does not answer leaves them out (the dispute is still read; retrieve again for them): a read of our
 * own record never fails for a provider's sake.
 */
export async function retrieveDispute(deps: DisputeDeps, principal: Principal, disputeId: string) {
  const dispute = await getDispute(deps, principal, disputeId);
  if (dispute.status !== 'needs_response') return { dispute, defenseReasons: undefined };
  const channel = await defenseChannelOf(deps, dispute);
  if (!channel) return { dispute, defenseReasons: [] };
  const defenseReasons = await reasonsOf(channel).catch((e: unknown) => {
    if (e instanceof AppError && e.code === 'PROVIDER_UNAVAILABLE') return undefined;
    throw e;
  });
  return { dispute, defenseReasons };
}

/** One page of the merchant's disputes, newest first: offset or starting_after (a dispute of this merchant and mode). */
export async function listDisputes(deps: Pick<DisputeDeps, 'disputes'>, principal: Principal, q: ListDisputesQuery) {
  if (q.starting_after && q.offset > 0) throw invalid([{ field: 'starting_after', message: 'cannot be combined with offset' }]);
  const after = q.starting_after ? await getDispute(deps, principal, q.starting_after).catch(() => null) : undefined;
  if (after === null) throw invalid([{ field: 'starting_after', message: 'must be a dispute of yours' }]);
  const query: DisputeListQuery = {
    status: q.status,
    paymentId: q.payment_id,
    from: q.from_date,
    to: q.to_date,
    limit: q.limit,
    offset: q.offset,
    ...(after ? { startingAfter: after } : {}),
  };
  return deps.disputes.list(principal.merchant.merchant_id, modeOf(principal.livemode), query);
}

/** A case (as read) the merchant may still act on: needs_response, its provider reachable; DISPUTE_NOT_OPEN otherwise. */
export async function openCase(deps: DisputeDeps, dispute: DisputeCase) {
  if (dispute.status !== 'needs_response')
    throw new AppError('DISPUTE_NOT_OPEN', `The dispute is ${dispute.status}.`, {
      details: [{ field: 'status', message: `is ${dispute.status}, not needs_response` }],
    });
  const channel = await defenseChannelOf(deps, dispute);
  if (!channel) throw new AppError('DISPUTE_NOT_DEFENDABLE');
  return { dispute, channel };
}

/** Checks evidence against the reasons listed: every problem named by its field. */
function evidenceProblems(channel: DefenseChannel, reasons: readonly DefenseReason[], input: EvidenceInput): FieldError[] {
  const problems: FieldError[] = [];
  if (!channel.takesDocuments) {
    if (input.defense_reason !== undefined)
      problems.push({ field: 'defense_reason', message: 'is not taken: a PIX MED defense is its text' });
    if (input.documents.length > 0) problems.push({ field: 'documents', message: 'are not taken: a PIX MED defense is its text' });
    return problems;
  }
  const reason = input.defense_reason === undefined ? undefined : reasons.find((r) => r.code === input.defense_reason);
  if (input.defense_reason !== undefined && !reason)
    problems.push({
      field: 'defense_reason',
      message: `must be one this dispute lists: ${reasons.map((r) => r.code).join(', ') || 'none'}`,
    });
  if (input.documents.length > 0 && input.defense_reason === undefined)
    problems.push({ field: 'defense_reason', message: 'is required with documents (their types are the reason’s)' });
  const seen = new Set<string>();
  input.documents.forEach((doc, i) => {
    if (reason && !reason.documents.some((d) => d.type === doc.type))
      problems.push({
        field: `documents.${i}.type`,
        message: `must be one ${reason.code} lists: ${reason.documents.map((d) => d.type).join(', ')}`,
      });
    if (seen.has(doc.type)) problems.push({ field: `documents.${i}.type`, message: 'is staged twice' });
    seen.add(doc.type);
    const problem = defenseDocumentProblem({ mime: doc.mime, contentBase64: doc.content_base64 });
    if (problem) problems.push({ field: `documents.${i}.content_base64`, message: problem });
  });
  return problems;
}

/** A submission or acceptance committed and not finished keeps its staging: it is sent again to finish, not restaged. */
function refuseWhileInProgress(d: DisputeCase) {
  if (d.last_action?.state === 'pending')
    throw new AppError('DISPUTE_NOT_OPEN', `A ${d.last_action.action} of this dispute is in progress: send it again to finish it.`, {
      details: [{ field: 'status', message: `has a ${d.last_action.action} in progress` }],
    });
}

/**
 * Stages evidence (it replaces what was staged): checked against the reasons the provider lists for this dispute and
 * the documents' types, sizes and bytes, then its documents stored and the case naming them committed. Nothing is sent
 * to the provider until submit. Bad input stores nothing.
 */
export async function stageEvidence(
  deps: DisputeDeps,
  principal: Principal,
  disputeId: string,
  input: EvidenceInput,
  answering?: Answering<DisputeCase>,
): Promise<DisputeCase> {
  const { dispute, channel } = await openCase(deps, await getDispute(deps, principal, disputeId));
  if (deadlinePassed(dispute, deps.clock.now()))
    throw new AppError('DISPUTE_DEADLINE_PASSED', `The deadline was ${dispute.evidence_due_by}: evidence can no longer be submitted.`);
  refuseWhileInProgress(dispute);
  const reasons = channel.takesDocuments ? await reasonsOf(channel) : [];
  const problems = evidenceProblems(channel, reasons, input);
  if (problems.length > 0) throw invalid(problems);
  const at = deps.clock.now().toISOString();
  const stagingId = deps.ids.newId('stg_').replace(/[^A-Za-z0-9]/g, '');
  const documents: StagedDocument[] = input.documents.map((d) => {
    const bytes = Buffer.from(d.content_base64, 'base64');
    return { type: d.type, mime: d.mime, size_bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  });
  await deps.disputes.putDocuments(
    dispute.dispute_id,
    stagingId,
    input.documents.map((d) => d.content_base64),
    at,
  );
  // A notice may move the case meanwhile: the staging is committed on the case as it is then (still open).
  let current = dispute;
  for (let attempt = 1; ; attempt++) {
    const next: DisputeCase = {
      ...current,
      evidence: { defense_reason: input.defense_reason ?? null, text: input.text ?? null, documents, staging_id: stagingId, staged_at: at },
      revision: current.revision + 1,
      updated_at: at,
    };
    try {
      await deps.disputes.save({ next, readRevision: current.revision, events: [], now: at, done: answering && (await answering(next)) });
      // The replaced staging's bytes are no longer named by the case (a crash here leaves them to their TTL).
      if (current.evidence) await deps.disputes.deleteDocuments(current.dispute_id, current.evidence.staging_id).catch(() => undefined);
      return next;
    } catch (e) {
      const moved = e instanceof WriteConflict && e.entity === 'dispute' && attempt < 3;
      const now = moved ? await deps.disputes.get(disputeId) : null;
      try {
        if (!now) throw e;
        if (now.status !== 'needs_response')
          throw new AppError('DISPUTE_NOT_OPEN', `The dispute is ${now.status}.`, {
            details: [{ field: 'status', message: `is ${now.status}` }],
          });
        // A submission committed meanwhile is sending the staging it read: this one may not replace it under it.
        refuseWhileInProgress(now);
      } catch (refused) {
        await deps.disputes.deleteDocuments(dispute.dispute_id, stagingId).catch(() => undefined);
        throw refused;
      }
      current = now;
    }
  }
}
