/** zod schemas of the dispute endpoints (DESIGN.md 9.4); types inferred from them. */
import * as z from '../zod';
import { isoDate } from '../payouts/payout.schemas';
import { paymentIdSchema } from '../payments/payment.schemas';
import { DISPUTE_CASE_STATUSES } from './dispute-case';
import { DEFENSE_CONTENT_TYPES, type DefenseContentType } from './evidence';

export const disputeIdSchema = z.string().check(z.regex(/^dsp_[A-Za-z0-9_-]{22,64}$/, 'must be a dispute id (dsp_...)'));
export const disputePath = z.object({ dispute_id: disputeIdSchema });

const code = z.string().check(z.trim(), z.minLength(1), z.maxLength(64));

/** Documents a staging may carry (the acquirer takes one per document type; a defense rarely names more than a few). */
export const MAX_EVIDENCE_DOCUMENTS = 8;
/** The text of a defense (a PIX MED defense's justification; a card defense's note). */
export const MAX_EVIDENCE_TEXT = 5000;

/**
 * POST /api/v1/disputes/{id}/evidence: what the merchant stages (it replaces what was staged). Shape only: which
 * reasons and types apply, and whether the bytes are what they claim, is the use case's check against the dispute.
 */
export const evidenceBody = z.strictObject({
  defense_reason: z.optional(code),
  text: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_EVIDENCE_TEXT))),
  documents: z._default(
    z
      .array(
        z.strictObject({
          type: code,
          mime: z.enum(DEFENSE_CONTENT_TYPES as [DefenseContentType, ...DefenseContentType[]]),
          content_base64: z.string().check(z.minLength(4)),
        }),
      )
      .check(z.maxLength(MAX_EVIDENCE_DOCUMENTS)),
    [],
  ),
});
export type EvidenceInput = z.infer<typeof evidenceBody>;

export const listDisputesQuery = z
  .object({
    status: z.optional(z.enum(DISPUTE_CASE_STATUSES)),
    payment_id: z.optional(paymentIdSchema),
    from_date: z.optional(isoDate),
    to_date: z.optional(isoDate),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 20),
    offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
    starting_after: z.optional(disputeIdSchema),
  })
  .check(
    z.refine((q) => !q.from_date || !q.to_date || Date.parse(q.from_date) <= Date.parse(q.to_date), {
      path: ['from_date'],
      message: 'must be before to_date',
    }),
  );
export type ListDisputesQuery = z.infer<typeof listDisputesQuery>;

/**
 * POST /api/v1/sandbox/payments/{id}/dispute: the test payment's payer's bank disputes it. `evidence_due_by` sets the
 * test dispute's deadline (default 7 days): near, to see dispute.evidence_due_soon; past, to see DISPUTE_DEADLINE_PASSED.
 */
export const simulateDisputeBody = z._default(
  z.strictObject({
    reason_code: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(32))),
    evidence_due_by: z.optional(z.iso.datetime({ offset: true })),
  }),
  {},
);
export type SimulateDisputeInput = z.infer<typeof simulateDisputeBody>;
