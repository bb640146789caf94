/**
 * Card dispute defense through Adyen's Disputes API v30 (DESIGN.md 9.4): the defense reasons Adyen lists for a dispute
 * with their documents, supplying and deleting documents, defending with a reason, accepting. Every call is a POST to the
 * Disputes API root (`disputes_base_url`, else derived from `base_url`: adyen.endpoints.ts) through the Adyen client (API
 * key, time limits, HTTP errors classified there: no answer, 5xx, 429 or a refused key -> ProviderUnavailable; a 4xx ->
 * ProviderRejected). Each answer's `disputeServiceResult.success` false is Adyen's definite no: ProviderRejected with its
 * errorMessage reduced to a code of ours (refusalCodeOf), status 200. No document content is logged.
 *
 * Repeats: retrieve is a read; supply replaces a document of the same type (a repeat sends the same bytes again); delete
 * and defend carry an Idempotency-Key per submission when the use case names it (submissionKeyOf): a retry of that
 * submission after a lost answer is answered as the first was (never `already defended`), while a later submission (a
 * defend refused for a missing document, sent again once it is there) reaches Adyen anew; accept carries one per
 * dispute (acceptKeyOf).
 */
import { ProviderRejected, type CardDisputeConnector } from '../../../application/providers';
import { logger } from '../../../observability';
import { ADYEN, type AdyenClient, type AdyenDisputeOp } from './adyen.client';
import { defenseReasonsResponseSchema, disputeServiceResponseSchema, type DisputeServiceResult } from './adyen.disputes.schemas';
import {
  acceptKeyOf,
  defenseDocumentProblem,
  defenseReasonsOf,
  refusalCodeOf,
  submissionKeyOf,
  supplyRequest,
} from './adyen.disputes.transformers';

/** Adyen's no (`success: false`) as ProviderRejected; nothing when it said yes. */
function ensureSuccess(op: AdyenDisputeOp, result: DisputeServiceResult): void {
  if (result.success) return;
  const code = refusalCodeOf(result.errorMessage);
  logger.warn('Adyen refused a dispute call', { provider: ADYEN, operation: op, code });
  throw new ProviderRejected(ADYEN, op, code, 200);
}

/**
 * The Disputes API connector. `client` is the Adyen client on the Disputes API root (`client.at(disputesBaseUrlOf(cfg))`);
 * `merchant_account` is the account the disputes belong to (Adyen's merchantAccountCode).
 */
export function adyenCardDisputes(cfg: { merchant_account: string }, client: AdyenClient): CardDisputeConnector {
  const account = cfg.merchant_account;
  const post = async (op: AdyenDisputeOp, body: Record<string, unknown>, idempotencyKey: string | null = null) => {
    const r = await client.post(op, `/${op}`, disputeServiceResponseSchema, body, idempotencyKey);
    ensureSuccess(op, r.disputeServiceResult);
  };

  return {
    provider: ADYEN,
    async defenseReasons(disputeReference) {
      const op = 'retrieveApplicableDefenseReasons';
      const r = await client.post(
        op,
        `/${op}`,
        defenseReasonsResponseSchema,
        { disputePspReference: disputeReference, merchantAccountCode: account },
        null,
      );
      ensureSuccess(op, r.disputeServiceResult);
      const { reasons, unknownLevels } = defenseReasonsOf(r);
      if (unknownLevels.length)
        logger.warn('Adyen listed a document requirement level we do not know (taken as optional)', {
          provider: ADYEN,
          operation: op,
          levels: unknownLevels,
        });
      return reasons;
    },
    async supplyDocuments(disputeReference, documents) {
      if (!documents.length) return;
      // The use cases validate documents before staging them; this refuses, before any call, what Adyen would not take.
      for (const d of documents) {
        const problem = defenseDocumentProblem(d);
        if (problem) throw new TypeError(`defense document ${d.type} not sent to Adyen: ${problem}`);
      }
      await post('supplyDefenseDocument', supplyRequest(disputeReference, account, documents));
    },
    async deleteDocument(disputeReference, type, submission) {
      await post(
        'deleteDisputeDefenseDocument',
        { defenseDocumentType: type, disputePspReference: disputeReference, merchantAccountCode: account },
        submission === undefined ? null : submissionKeyOf('delete', disputeReference, submission, type),
      );
    },
    async defend(disputeReference, defenseReasonCode, submission) {
      await post(
        'defendDispute',
        { defenseReasonCode, disputePspReference: disputeReference, merchantAccountCode: account },
        submission === undefined ? null : submissionKeyOf('defend', disputeReference, submission),
      );
    },
    async accept(disputeReference) {
      await post('acceptDispute', { disputePspReference: disputeReference, merchantAccountCode: account }, acceptKeyOf(disputeReference));
    },
  };
}
