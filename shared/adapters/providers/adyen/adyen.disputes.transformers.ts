/**
 * Between our dispute port (DefenseReason, DefenseDocument) and Adyen's Disputes API v30: the requirement levels in our
 * words, the documents Adyen takes (content type, size, and bytes that are that type), Adyen's refusal as a code of ours,
 * and the one Idempotency-Key we send. Pure: no I/O.
 */
import { createHash } from 'node:crypto';
import type { DefenseDocument, DefenseDocumentRequirement, DefenseReason } from '../../../application/providers';
import { type DefenseReasonsResponse, type RequirementLevel, type SupplyDefenseDocumentRequest } from './adyen.disputes.schemas';

export { defenseDocumentProblem } from '../../../domain/disputes/evidence';

const REQUIREMENTS: Readonly<Record<RequirementLevel, DefenseDocumentRequirement>> = {
  Required: 'required',
  OneOrMore: 'one_or_more',
  Optional: 'optional',
  AlternativeRequired: 'alternative_required',
};

/**
 * Adyen's requirementLevel in our words. A level the spec does not list is taken as optional: Adyen itself refuses a
 * defense that lacks a document it needs (success false, which the merchant sees), whereas reading it as required could
 * forbid a defense Adyen would take. `known` says whether the level was one of the four.
 */
export function requirementOf(level: string): { requirement: DefenseDocumentRequirement; known: boolean } {
  const r = (REQUIREMENTS as Readonly<Record<string, DefenseDocumentRequirement>>)[level];
  return r ? { requirement: r, known: true } : { requirement: 'optional', known: false };
}

/** The defense reasons of a retrieveApplicableDefenseReasons answer, with their documents, in Adyen's order. */
export function defenseReasonsOf(r: DefenseReasonsResponse): { reasons: DefenseReason[]; unknownLevels: string[] } {
  const unknownLevels = new Set<string>();
  const reasons = (r.defenseReasons ?? []).map((reason) => ({
    code: reason.defenseReasonCode,
    documents: (reason.defenseDocumentTypes ?? []).map((d) => {
      const { requirement, known } = requirementOf(d.requirementLevel);
      if (!known) unknownLevels.add(d.requirementLevel.slice(0, 40));
      return { type: d.defenseDocumentTypeCode, requirement };
    }),
  }));
  return { reasons, unknownLevels: [...unknownLevels] };
}

/** The supplyDefenseDocument body: every document in one call (Adyen's array), each as our port gives it. */
export function supplyRequest(
  disputePspReference: string,
  merchantAccountCode: string,
  documents: readonly DefenseDocument[],
): SupplyDefenseDocumentRequest {
  return {
    defenseDocuments: documents.map((d) => ({ content: d.contentBase64, contentType: d.mime, defenseDocumentTypeCode: d.type })),
    disputePspReference,
    merchantAccountCode,
  };
}

/**
 * Adyen's errorMessage of a `success: false` (a general message in English) as a stable code of ours:
 * `adyen_` and its words in snake case, keeping only words made of letters (numbers, references, addresses dropped), at
 * most 64 characters. No message: `adyen_dispute_refused`.
 */
export function refusalCodeOf(errorMessage: string | undefined): string {
  const words = (errorMessage ?? '')
    .split(/\s+/)
    .filter((w) => !w.includes('@'))
    .flatMap((w) => w.split(/[^A-Za-z0-9]+/))
    .filter((w) => /^[A-Za-z]+$/.test(w))
    .map((w) => w.toLowerCase());
  let code = 'adyen';
  for (const w of words) {
    if (code.length + 1 + w.length > 64) break;
    code += `_${w}`;
  }
  return code === 'adyen' ? 'adyen_dispute_refused' : code;
}

/**
 * The Idempotency-Key of a submission's defendDispute or deleteDisputeDefenseDocument (of one document type): one per
 * submission, so a retry of that submission after a lost answer is the same request (answered the same, never carried
 * out twice), while a later submission reaches Adyen anew. At most 64 printable characters.
 */
export function submissionKeyOf(op: 'defend' | 'delete', disputePspReference: string, submission: string, type = ''): string {
  const digest = createHash('sha256').update([disputePspReference, submission, type].join('\u0000')).digest('hex').slice(0, 40);
  return `dispute-${op}-${digest}`;
}

/**
 * The Idempotency-Key of an accept: one per dispute (an accept is final, so its repeat is the same request). The Disputes
 * API spec declares no such header; Adyen's idempotency page says its POSTs take it. Keys are at most 64 printable characters.
 */
export function acceptKeyOf(disputePspReference: string): string {
  const key = `dispute-accept-${disputePspReference}`;
  return key.length <= 64 ? key : `dispute-accept-${createHash('sha256').update(disputePspReference).digest('hex').slice(0, 40)}`;
}
