/**
 * The fake Adyen's Disputes API v30 (DisputeService, under /ca/services/DisputeService/v30 as on Adyen's Customer Area
 * host): disputes a test opens (keyed by the chargeback's pspReference), the defense reasons each lists with their
 * documents, documents supplied (a repeat of a type replaces it) and deleted, a defense refused without the chosen reason's
 * documents, refusals after an accept, a defense or the dispute's end (its notices), and accept. Every request is checked
 * against our schemas of the spec (a mismatch: 422 and a violation) and so is every answer (a mismatch: a violation).
 * Documents over Adyen's limits (PDF 2 MB, JPEG and TIFF 10 MB) or whose bytes are not their type are violations too.
 * Adyen answers its own refusals `200 {"disputeServiceResult": {"success": false, "errorMessage": ...}}`; the messages
 * here are the fake's words (Adyen's own wording is not published).
 */
import type { IncomingMessage } from 'node:http';
import type * as z from '../../../shared/domain/zod';
import { ADYEN_DISPUTE_OPS, type AdyenDisputeOp } from '../../../shared/adapters/providers/adyen/adyen.client';
import {
  acceptDisputeRequestSchema,
  defendDisputeRequestSchema,
  defenseReasonsRequestSchema,
  defenseReasonsResponseSchema,
  deleteDefenseDocumentRequestSchema,
  disputeServiceResponseSchema,
  REQUIREMENT_LEVELS,
  supplyDefenseDocumentRequestSchema,
  type RequirementLevel,
} from '../../../shared/adapters/providers/adyen/adyen.disputes.schemas';
import { defenseDocumentProblem } from '../../../shared/adapters/providers/adyen/adyen.disputes.transformers';
import { AdyenError, pspRef } from './adyen-error';

export interface FakeDefenseReason {
  readonly code: string;
  readonly documents: ReadonlyArray<{ readonly type: string; readonly level: RequirementLevel }>;
}

export interface FakeDispute {
  readonly pspReference: string;
  readonly paymentPspReference: string;
  readonly reasonCode: string;
  readonly defenseReasons: readonly FakeDefenseReason[];
  readonly defensePeriodEndsAt: string;
  /** Supplied documents by type (the last supply of a type replaces the one before). */
  readonly documents: Map<string, { contentType: string; bytes: number; content: string }>;
  /** How many supplyDefenseDocument calls reached this dispute (refused ones included). */
  supplies: number;
  /** defendDispute and acceptDispute calls carried out on this dispute (refused ones included; a replay by Idempotency-Key is not). */
  defends: number;
  accepts: number;
  defendedWith: string | null;
  accepted: boolean;
  /** Ended by a notice: won (CHARGEBACK_REVERSED), lost (SECOND_CHARGEBACK, PREARBITRATION_LOST), expired (defense period ended). */
  closed: 'won' | 'lost' | 'expired' | null;
}

export interface OpenDispute {
  pspReference?: string;
  paymentPspReference: string;
  reasonCode: string;
  defenseReasons?: readonly FakeDefenseReason[];
  defensePeriodEndsAt?: string;
}

const doc = (type: string, level: RequirementLevel) => ({ type, level });

/**
 * Fraud (Visa 10.x, Mastercard 4837/4840/4849/4863/4870/4871, Amex F and FR codes): a defense by material or by the goods
 * delivered. The codes are Adyen's published examples (SupplyDefenseMaterial, DefenseMaterial, TIDorInvoice) and
 * illustrative ones; a real dispute's list comes from Adyen.
 */
export const FRAUD_DEFENSE_REASONS: readonly FakeDefenseReason[] = [
  { code: 'SupplyDefenseMaterial', documents: [doc('DefenseMaterial', 'Required'), doc('TIDorInvoice', 'Optional')] },
  {
    code: 'GoodsOrServicesProvided',
    documents: [doc('InvoiceWithShippingAddress', 'OneOrMore'), doc('DefenseMaterial', 'OneOrMore'), doc('TIDorInvoice', 'Optional')],
  },
];

/** Other reasons: the list of the spec's example answer. */
export const CONSUMER_DEFENSE_REASONS: readonly FakeDefenseReason[] = [
  { code: 'GoodsNotReturned', documents: [doc('TIDorInvoice', 'Optional'), doc('GoodsNotReturned', 'Required')] },
  { code: 'GoodsRepairedOrReplaced', documents: [doc('TIDorInvoice', 'Optional'), doc('GoodsRepairedOrReplaced', 'Required')] },
  { code: 'GoodsWereAsDescribed', documents: [doc('GoodsWereAsDescribed', 'Required'), doc('TIDorInvoice', 'Required')] },
  { code: 'SupplyDefenseMaterial', documents: [doc('TIDorInvoice', 'Optional'), doc('DefenseMaterial', 'Required')] },
];

const isFraud = (reasonCode: string) => /^(10\.\d|48(37|40|49|63|70|71)|F\d+|FR\d+)$/.test(reasonCode);

/** Enough documents for a reason: its AlternativeRequired one, or every Required one and one OneOrMore (if it lists any). */
function satisfied(reason: FakeDefenseReason, has: (type: string) => boolean): boolean {
  const of = (level: RequirementLevel) => reason.documents.filter((d) => d.level === level);
  if (of('AlternativeRequired').some((d) => has(d.type))) return true;
  const oneOrMore = of('OneOrMore');
  return of('Required').every((d) => has(d.type)) && (!oneOrMore.length || oneOrMore.some((d) => has(d.type)));
}

export const disputeOpOf = (path: string): AdyenDisputeOp | null => {
  const op = path.replace(/^\//, '');
  return (ADYEN_DISPUTE_OPS as readonly string[]).includes(op) ? (op as AdyenDisputeOp) : null;
};

type Check = <S extends z.ZodMiniType>(what: string, schema: S, value: unknown) => z.infer<S>;

export function disputeService(opts: {
  merchantAccount: string;
  apiKey: string;
  check: Check;
  /** Records an answer that breaks our schema (never throws: the answer still goes out). */
  checkAnswer: (what: string, schema: z.ZodMiniType, value: unknown) => void;
  violations: string[];
}) {
  const disputes = new Map<string, FakeDispute>();
  const idempotency = new Map<string, { body: string; answer: [number, unknown] }>();
  /** Refusals a test scripts: the next calls of an op answered `success: false` with this message (the request still checked). */
  const refusals = new Map<AdyenDisputeOp, string[]>();
  const result = (success: boolean, errorMessage?: string) => ({
    disputeServiceResult: { success, ...(errorMessage ? { errorMessage } : {}) },
  });
  /** Why no change may be made to this dispute's defense any more, or null. */
  const ended = (d: FakeDispute) =>
    d.closed === 'expired'
      ? 'Defense period has ended'
      : d.closed
        ? 'Dispute is closed'
        : d.accepted
          ? 'Dispute is already accepted'
          : d.defendedWith
            ? 'Dispute is already defended'
            : null;

  function answer(op: AdyenDisputeOp, body: unknown): unknown {
    const schemas = {
      retrieveApplicableDefenseReasons: defenseReasonsRequestSchema,
      supplyDefenseDocument: supplyDefenseDocumentRequestSchema,
      deleteDisputeDefenseDocument: deleteDefenseDocumentRequestSchema,
      defendDispute: defendDisputeRequestSchema,
      acceptDispute: acceptDisputeRequestSchema,
    } as const;
    const req = opts.check(`POST /${op}`, schemas[op], body) as { merchantAccountCode: string; disputePspReference: string };
    if (req.merchantAccountCode !== opts.merchantAccount) throw new AdyenError(403, '901', 'security', 'Invalid Merchant Account');
    const d = disputes.get(req.disputePspReference);
    if (!d) return result(false, 'Dispute not found');
    const refusal = refusals.get(op)?.shift();
    if (refusal !== undefined) return result(false, refusal);
    const has = (type: string) => d.documents.has(type);
    switch (op) {
      case 'retrieveApplicableDefenseReasons':
        if (d.closed || d.accepted) return { defenseReasons: [], ...result(true) };
        return {
          defenseReasons: d.defenseReasons.map((r) => ({
            defenseDocumentTypes: r.documents.map((x) => ({
              available: has(x.type),
              defenseDocumentTypeCode: x.type,
              requirementLevel: x.level,
            })),
            defenseReasonCode: r.code,
            satisfied: satisfied(r, has),
          })),
          ...result(true),
        };
      case 'supplyDefenseDocument': {
        d.supplies += 1;
        const why = ended(d);
        if (why) return result(false, why);
        const docs = (body as z.infer<typeof supplyDefenseDocumentRequestSchema>).defenseDocuments;
        const listed = new Set(d.defenseReasons.flatMap((r) => r.documents.map((x) => x.type)));
        for (const x of docs) {
          const problem = defenseDocumentProblem({ mime: x.contentType, contentBase64: x.content });
          if (problem) {
            opts.violations.push(`POST /supplyDefenseDocument ${x.defenseDocumentTypeCode}: ${problem}`);
            return result(false, 'Invalid defense document');
          }
          if (!listed.has(x.defenseDocumentTypeCode)) return result(false, 'Invalid defense document type');
        }
        for (const x of docs)
          d.documents.set(x.defenseDocumentTypeCode, {
            contentType: x.contentType,
            bytes: Buffer.from(x.content, 'base64').length,
            content: x.content,
          });
        return result(true);
      }
      case 'deleteDisputeDefenseDocument': {
        const why = ended(d);
        if (why) return result(false, why);
        const type = (body as z.infer<typeof deleteDefenseDocumentRequestSchema>).defenseDocumentType;
        if (!d.documents.delete(type)) return result(false, 'Defense document not found');
        return result(true);
      }
      case 'defendDispute': {
        d.defends += 1;
        const why = ended(d);
        if (why) return result(false, why);
        const reason = d.defenseReasons.find((r) => r.code === (body as { defenseReasonCode: string }).defenseReasonCode);
        if (!reason) return result(false, 'Invalid defense reason');
        if (!satisfied(reason, has)) return result(false, 'Required defense documents are missing');
        d.defendedWith = reason.code;
        return result(true);
      }
      case 'acceptDispute': {
        d.accepts += 1;
        const why = ended(d);
        if (why) return result(false, why);
        d.accepted = true;
        return result(true);
      }
    }
  }

  return {
    open(o: OpenDispute): FakeDispute {
      const reasons = o.defenseReasons ?? (isFraud(o.reasonCode) ? FRAUD_DEFENSE_REASONS : CONSUMER_DEFENSE_REASONS);
      for (const r of reasons)
        for (const x of r.documents)
          if (!(REQUIREMENT_LEVELS as readonly string[]).includes(x.level)) throw new Error(`fake Adyen: no requirement level ${x.level}`);
      const d: FakeDispute = {
        pspReference: o.pspReference ?? pspRef(),
        paymentPspReference: o.paymentPspReference,
        reasonCode: o.reasonCode,
        defenseReasons: reasons,
        defensePeriodEndsAt: o.defensePeriodEndsAt ?? new Date(Date.now() + 20 * 86_400_000).toISOString(),
        documents: new Map(),
        supplies: 0,
        defends: 0,
        accepts: 0,
        defendedWith: null,
        accepted: false,
        closed: null,
      };
      disputes.set(d.pspReference, d);
      return d;
    },
    get: (pspReference: string) => disputes.get(pspReference),
    /** The next `times` calls of `op` (on a dispute the fake holds) answer `success: false` with `errorMessage`, changing nothing. */
    refuseNext(op: AdyenDisputeOp, errorMessage: string, times = 1) {
      refusals.set(op, [...(refusals.get(op) ?? []), ...Array.from({ length: times }, () => errorMessage)]);
    },
    /** A notice Adyen sent for a dispute: the ones that end it close it. */
    noticed(pspReference: string, eventCode: string) {
      const d = disputes.get(pspReference);
      if (!d) return;
      if (eventCode === 'CHARGEBACK_REVERSED' || eventCode === 'PREARBITRATION_WON') d.closed = 'won';
      else if (eventCode === 'SECOND_CHARGEBACK' || eventCode === 'PREARBITRATION_LOST') d.closed = 'lost';
      else if (eventCode === 'DISPUTE_DEFENSE_PERIOD_ENDED') d.closed ??= 'expired';
    },
    /** Whether this call repeats one carried out (its Idempotency-Key seen with this body): answered as that one was. */
    isReplay: (op: AdyenDisputeOp, text: string, key: string) => idempotency.get(`${op}:${key}`)?.body === text,
    /**
     * One Disputes API call. An Idempotency-Key is optional here (the spec declares none); when sent, Adyen's general
     * rule applies: the same key and body answer the same, the same key with another body is 422 704.
     */
    route(op: AdyenDisputeOp, text: string, req: IncomingMessage): [number, unknown] {
      if (req.headers['x-api-key'] !== opts.apiKey) throw new AdyenError(401, '000', 'security', 'HTTP Status Response - Unauthorized');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        opts.violations.push(`POST /${op}: a body that is not JSON`);
        throw new AdyenError(422, '702', 'validation', 'not JSON');
      }
      const key = req.headers['idempotency-key'];
      if (key !== undefined && (typeof key !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(key)))
        opts.violations.push(`POST /${op}: a bad Idempotency-Key`);
      const seen = typeof key === 'string' ? idempotency.get(`${op}:${key}`) : undefined;
      if (seen) {
        if (seen.body === text) return seen.answer;
        opts.violations.push(`POST /${op}: Idempotency-Key ${String(key)} reused with another body`);
        throw new AdyenError(422, '704', 'validation', 'request already processed or in progress');
      }
      const out = answer(op, body);
      opts.checkAnswer(
        `answer of POST /${op}`,
        op === 'retrieveApplicableDefenseReasons' ? defenseReasonsResponseSchema : disputeServiceResponseSchema,
        out,
      );
      const a: [number, unknown] = [200, out];
      if (typeof key === 'string') idempotency.set(`${op}:${key}`, { body: text, answer: a });
      return a;
    },
  };
}

export type DisputeService = ReturnType<typeof disputeService>;
