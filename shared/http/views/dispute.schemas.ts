/** Response schemas of the dispute views (DESIGN.md 9.4). */
import * as z from 'zod';
import { DEFENSE_DOCUMENT_MIMES, DEFENSE_DOCUMENT_REQUIREMENTS } from '../../application/providers';
import { DISPUTE_CASE_KINDS, DISPUTE_CASE_STATUSES, DISPUTE_REASONS } from '../../domain/disputes/dispute-case';
import { amount, currency, idOf, livemode, metadata, timestamp } from './wire.schemas';

export const disputeId = idOf('dsp', 'Dispute id.');

export const defenseReasons = z
  .array(
    z.object({
      code: z
        .string()
        .meta({ description: 'The provider’s code of the defense reason: evidence’s defense_reason.', example: 'SupplyDefenseMaterial' }),
      documents: z.array(
        z.object({
          type: z.string().meta({ description: 'A document type code: a staged document’s type.', example: 'GoodsOrServicesProvided' }),
          requirement: z.enum(DEFENSE_DOCUMENT_REQUIREMENTS).meta({
            description:
              'required: this type must be supplied; one_or_more: at least one of the one_or_more types; alternative_required: ' +
              'one of the alternative_required types; optional.',
          }),
        }),
      ),
    }),
  )
  .meta({ id: 'DefenseReasons', description: 'The defense reasons the provider lists for this dispute now, with their documents.' });

export const disputeResource = z
  .object({
    success: z.literal(true),
    dispute_id: disputeId,
    payment_id: z.string().meta({ description: 'The disputed payment (pi_...).' }),
    kind: z.enum(DISPUTE_CASE_KINDS),
    status: z.enum(DISPUTE_CASE_STATUSES).meta({ example: 'needs_response' }),
    reason: z.enum(DISPUTE_REASONS),
    provider_reason_code: z.string().nullable().meta({ description: 'The card scheme’s reason code, or the infraction’s.' }),
    amount,
    currency,
    funds_withdrawn: z.boolean().meta({
      description: 'The disputed amount is out of your balance now: a card chargeback debited and not reversed, or a PIX MED return made.',
    }),
    evidence_due_by: timestamp.nullable().meta({ description: 'Submit before this; after it, submit answers DISPUTE_DEADLINE_PASSED.' }),
    evidence: z
      .object({
        defense_reason: z.string().nullable(),
        text: z.string().nullable(),
        documents: z.array(z.object({ type: z.string(), mime: z.enum(DEFENSE_DOCUMENT_MIMES), size_bytes: z.number().int() })),
        staged_at: timestamp,
      })
      .nullable()
      .meta({ description: 'What is staged (document contents are never shown back).' }),
    submitted_at: timestamp.nullable(),
    accepted_at: timestamp.nullable(),
    last_error: z
      .object({ code: z.string(), message: z.string(), at: timestamp })
      .nullable()
      .meta({ description: 'The provider’s refusal of the last submission or acceptance; the dispute stays needs_response.' }),
    created_at: timestamp,
    updated_at: timestamp,
    closed_at: timestamp.nullable(),
    livemode,
    metadata,
    defense_reasons: defenseReasons.optional().meta({
      description:
        'On retrieve, while the dispute needs a response ([] when its provider takes no defense through the API); absent ' +
        'as well when the provider did not answer just now: retrieve again.',
    }),
  })
  .meta({ id: 'Dispute' });

export const disputeList = z.object({
  success: z.literal(true),
  data: z.array(disputeResource.omit({ success: true, defense_reasons: true })),
  pagination: z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() }),
  has_more: z.boolean(),
  next_cursor: disputeId.nullable().meta({ description: 'Pass as starting_after for the next page.' }),
});
