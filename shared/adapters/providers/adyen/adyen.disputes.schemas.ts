/**
 * Our schemas of Adyen's Disputes API v30 (Adyen/adyen-openapi json/DisputeService-v30.json, which the fake Adyen checks
 * every request and its own answers against): the five requests (strict: an unknown field is a mismatch) and their
 * answers (loose: Adyen may add fields). Written from the spec's field rules, not copied. The spec types every field as
 * a bare string; what we send is narrower (our account, Adyen's 16-character pspReference, the three content types
 * and sizes Adyen accepts for defense documents), and the answers keep the spec's own breadth.
 */
import { isStandardBase64 } from '../../../domain/base64';
import * as z from '../../../domain/zod';

/** Adyen's pspReference of the dispute (the chargeback's): 16 letters or digits. */
export const disputePspReferenceSchema = z.string().check(z.regex(/^[A-Za-z0-9]{16}$/, 'must be 16 letters or digits'));
const merchantAccountCode = z.string().check(z.minLength(1), z.maxLength(256));
/** A code of Adyen's (defense reason, document type): letters and digits, as its lists give them. */
const codeSchema = z.string().check(z.regex(/^[A-Za-z0-9_]{1,64}$/, 'must be 1 to 64 letters, digits or _'));

export { DEFENSE_CONTENT_LIMITS, DEFENSE_CONTENT_TYPES, type DefenseContentType } from '../../../domain/disputes/evidence';
import { DEFENSE_CONTENT_TYPES, type DefenseContentType } from '../../../domain/disputes/evidence';

/** Standard base64 (the spec's `format: byte`), no line breaks. */
export const base64Schema = z
  .string()
  .check(z.minLength(4), z.refine(isStandardBase64, 'must be base64 without line breaks (a length that is a multiple of 4)'));

export const defenseDocumentSchema = z.strictObject({
  content: base64Schema,
  contentType: z.enum(DEFENSE_CONTENT_TYPES as [DefenseContentType, ...DefenseContentType[]]),
  defenseDocumentTypeCode: codeSchema,
});
export type AdyenDefenseDocument = z.infer<typeof defenseDocumentSchema>;

export const defenseReasonsRequestSchema = z.strictObject({
  disputePspReference: disputePspReferenceSchema,
  merchantAccountCode,
});
export const supplyDefenseDocumentRequestSchema = z.strictObject({
  defenseDocuments: z.array(defenseDocumentSchema).check(z.minLength(1), z.maxLength(20)),
  disputePspReference: disputePspReferenceSchema,
  merchantAccountCode,
});
export type SupplyDefenseDocumentRequest = z.infer<typeof supplyDefenseDocumentRequestSchema>;
export const deleteDefenseDocumentRequestSchema = z.strictObject({
  defenseDocumentType: codeSchema,
  disputePspReference: disputePspReferenceSchema,
  merchantAccountCode,
});
export const defendDisputeRequestSchema = z.strictObject({
  defenseReasonCode: codeSchema,
  disputePspReference: disputePspReferenceSchema,
  merchantAccountCode,
});
export const acceptDisputeRequestSchema = z.strictObject({
  disputePspReference: disputePspReferenceSchema,
  merchantAccountCode,
});

/** DisputeServiceResult: every answer carries it; `success` false is Adyen's no, with a general errorMessage. */
export const disputeServiceResultSchema = z.looseObject({
  success: z.boolean(),
  errorMessage: z.optional(z.string()),
});
export type DisputeServiceResult = z.infer<typeof disputeServiceResultSchema>;

/** The requirement levels the spec lists for DefenseDocumentType.requirementLevel. */
export const REQUIREMENT_LEVELS = ['Required', 'OneOrMore', 'Optional', 'AlternativeRequired'] as const;
export type RequirementLevel = (typeof REQUIREMENT_LEVELS)[number];

export const defenseDocumentTypeSchema = z.looseObject({
  available: z.boolean(),
  defenseDocumentTypeCode: z.string(),
  /** A string in the spec (its description lists four values): a level we do not know is mapped, not refused. */
  requirementLevel: z.string(),
});
export const defenseReasonSchema = z.looseObject({
  defenseDocumentTypes: z.optional(z.array(defenseDocumentTypeSchema)),
  defenseReasonCode: z.string(),
  satisfied: z.boolean(),
});
export type AdyenDefenseReason = z.infer<typeof defenseReasonSchema>;

export const defenseReasonsResponseSchema = z.looseObject({
  defenseReasons: z.optional(z.array(defenseReasonSchema)),
  disputeServiceResult: disputeServiceResultSchema,
});
export type DefenseReasonsResponse = z.infer<typeof defenseReasonsResponseSchema>;

/** The answer of supply, delete, defend and accept: the result alone. */
export const disputeServiceResponseSchema = z.looseObject({ disputeServiceResult: disputeServiceResultSchema });
