/**
 * Between our PIX payouts (svc-mt-5, Brazil) and dLocal's payouts v3 wire: our reference (the external_id derived
 * from the payout id, with an attempt suffix when a payout is sent again as another attempt), the request for a
 * payout by PIX key, what a payout read back means to us, and dLocal's refusals as our failure codes, with which of
 * them say for certain that no payout was made (payoutNotProcessed). Keys and documents are never logged and never
 * leave here in clear except inside the request itself; dLocal's texts (message, status_detail) never leave here.
 */
import type { PayoutOrderRequest, ProviderOrder, ProviderOrderState } from '../../../application/providers';
import { validateDocument } from '../../../domain/documents';
import type { InstantTransferType } from '../../../domain/catalog/payout-methods';
import { checkInstantTransferKey } from '../../../domain/payouts/beneficiary';
import { maskKey } from '../../../domain/payouts/masking';
import * as z from '../../../domain/zod';
import { splitName } from './dlocal.payouts';
import type { DlocalPayout } from './dlocal.schemas';
import { PIX_EXTERNAL_ID, pixPayoutRequestSchema, type DlocalPixKeyType, type PixPayoutRequest } from './dlocal.pix-schemas';
import { dlocalAmount, externalIdOf, payoutFailureOf, payoutIdOfExternalId } from './dlocal.transformers';

/** Our PIX payout method (SPEC.md: svc-mt-5, Brazil, BRL, by PIX key). */
export const PIX_PAYOUT_METHOD = 'svc-mt-5';

/**
 * A payout order as the dLocal PIX connector takes it: the port's request, and optionally the reference to send it
 * under (a payout sent again as a later attempt carries the attempt suffix, `<external_id>a2`); without it, the
 * payout's own external_id.
 */
export interface DlocalPixOrderRequest extends PayoutOrderRequest {
  readonly reference?: string;
}

/**
 * The reference a PIX payout is sent under: the given one when it is this payout's external_id or that with an
 * attempt suffix; else our defect (a reference of another payout would pay it under the wrong id): RangeError.
 */
export function pixReferenceOf(payoutId: string, reference?: string): string {
  const own = externalIdOf(payoutId);
  if (reference === undefined) return own;
  if (!PIX_EXTERNAL_ID.test(reference) || !reference.startsWith(own)) throw new RangeError('not a reference of this payout');
  return reference;
}

/** The payout a reference names (its attempt suffix dropped), or null when it is not one of ours. */
export function payoutIdOfPixReference(reference: string): string | null {
  if (!PIX_EXTERNAL_ID.test(reference)) return null;
  return payoutIdOfExternalId(reference.slice(0, 34));
}

/** Our instant_transfer_type (SPEC.md 2.6) as the key type sent (UNCONFIRMED spellings: dlocal.pix-schemas.ts). */
export const PIX_KEY_TYPES: Readonly<Partial<Record<InstantTransferType, DlocalPixKeyType>>> = {
  cpf: 'CPF',
  cnpj: 'CNPJ',
  email: 'EMAIL',
  phone: 'PHONE',
  random: 'EVP',
};

/** What the merchant is told when a beneficiary cannot be paid this way (400 INVALID_BENEFICIARY, nothing written). */
export const PIX_INVALID = {
  method: 'This payout method is not paid through this provider.',
  currency: 'Brazilian PIX payouts are paid in BRL.',
  document: 'The beneficiary document must be a valid CPF (11 digits) or a numeric CNPJ (14 digits).',
  key: 'This provider pays PIX payouts by key: give instant_transfer_key and instant_transfer_type (cpf, cnpj, email, phone or random).',
  keyInvalid: 'The PIX key does not match its type.',
  name: 'The beneficiary name is empty.',
  request: 'The payout cannot be written as a dLocal PIX payout.',
} as const;

/** Text dLocal shows (description): control characters dropped, spaces collapsed, at most 100. */
function descriptionOf(value: string | null): string | undefined {
  const t = (value ?? '')
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100)
    .trim();
  return t || undefined;
}

/**
 * Our payout as dLocal's PIX payout request, or why this beneficiary cannot be paid through it. The same payout
 * and reference always give the same body, so a resend is the same request.
 */
export function pixPayoutBodyOf(
  req: DlocalPixOrderRequest,
  notificationUrl: string,
): { readonly body: PixPayoutRequest } | { readonly invalid: string } {
  if (req.methodCode !== PIX_PAYOUT_METHOD) return { invalid: PIX_INVALID.method };
  if (req.currency !== 'BRL') return { invalid: PIX_INVALID.currency };
  const docType = req.documentType.toUpperCase();
  if (docType !== 'CPF' && docType !== 'CNPJ') return { invalid: PIX_INVALID.document };
  const doc = validateDocument(docType, req.beneficiaryDocument, 'BRA');
  // dLocal's page takes numeric documents only (an alphanumeric CNPJ of 2026 is not in its validation table).
  if (!doc.valid || !/^\d+$/.test(doc.normalized)) return { invalid: PIX_INVALID.document };
  const ourType = req.instantTransferType as InstantTransferType | null;
  const keyType = ourType ? PIX_KEY_TYPES[ourType] : undefined;
  const key = (req.instantTransferKey ?? '').trim();
  if (!keyType || !key) return { invalid: PIX_INVALID.key };
  if (!checkInstantTransferKey(ourType as InstantTransferType, key).ok) return { invalid: PIX_INVALID.keyInvalid };
  const names = splitName(req.beneficiaryName);
  if (!names.first_name) return { invalid: PIX_INVALID.name };
  const description = descriptionOf(req.concept);
  const body: PixPayoutRequest = {
    external_id: pixReferenceOf(req.payoutId, req.reference),
    country: 'BR',
    payment_method_id: 'BANK_TRANSFER',
    amount: dlocalAmount(req.amountMinor, 'BRL'),
    currency: 'BRL',
    // A merchant paying its sellers or customers: dLocal's purposes have no closer one (as the bank payouts send).
    purpose: 'OTHER',
    flow_type: docType === 'CPF' ? 'B2C' : 'B2B',
    ...(description ? { description } : {}),
    notification_url: notificationUrl,
    beneficiary: {
      ...names,
      document: { type: docType, id: doc.normalized },
      bank_account: { pix_key: key, pix_key_type: keyType },
    },
  };
  // Our own schema of dLocal's rules is the last word: what it refuses is never sent.
  if (!z.safeParse(pixPayoutRequestSchema, body).success) return { invalid: PIX_INVALID.request };
  return { body };
}

const KEY_TYPE_NAMES: Readonly<Record<DlocalPixKeyType, string>> = {
  CPF: 'cpf',
  CNPJ: 'cnpj',
  EMAIL: 'email',
  PHONE: 'phone',
  EVP: 'random',
};

/** What a payout keeps of its request in clear: document and key masked, never whole. */
export function pixSummaryOf(b: PixPayoutRequest): ProviderOrder['summary'] {
  const account = b.beneficiary.bank_account;
  return {
    external_id: b.external_id,
    country: b.country,
    amount: b.amount,
    currency: b.currency,
    document_type: b.beneficiary.document.type,
    document: maskKey(b.beneficiary.document.type.toLowerCase(), b.beneficiary.document.id),
    pix_key_type: account.pix_key_type,
    pix_key: maskKey(KEY_TYPE_NAMES[account.pix_key_type], account.pix_key),
  };
}

/**
 * dLocal's numeric error code in the payouts v3 numbering. docs.dlocal.com/reference/error-codes (the older
 * payouts table: 300, 301, 303, 401, 402, 507..515) and reference/error-codes-payouts-v3 (3000, 3001, 3003, 4001,
 * 4002, 5007..5015) name the same errors, each v3 code being the old one with its hundreds widened to thousands
 * (511 "External ID already used" = 5011); our bank payouts and the fake were built on the old numbers, so both
 * are read.
 */
export function v3CodeOf(code: number | null | undefined): number | null {
  if (typeof code !== 'number' || !Number.isInteger(code)) return null;
  return code >= 300 && code < 1000 ? Math.floor(code / 100) * 1000 + (code % 100) : code;
}

/** "Payout not found with this ID." (reference/error-codes-payouts-v3, 5009): the only certain "none". */
export const PAYOUT_NOT_FOUND = 5009;
/** "External ID already used." (5011): a payout exists under this reference. */
export const EXTERNAL_ID_USED = 5011;

/**
 * The dLocal payout answers that say for certain that the payout was not made, for a reason that is ours or the
 * provider's, not the beneficiary's (so another provider may be tried: DESIGN.md 9.2). Source:
 * docs.dlocal.com/reference/error-codes-payouts-v3, "Error codes and HTTP status": errors are answered instead of a
 * payout ("the error code and HTTP status shown when a payout fails"; a payout made and then refused is a REJECTED
 * payout, reference/payout-status-v3, not an error answer):
 *   4001 "Invalid credentials." and 4002 "Unregistered IP address" (403, 4xxx "Merchant identification
 *   validation": the request is refused before any payout is looked at), 5007 "Country not found for payouts"
 *   (our account does not pay out there), 5014 "Insufficient funds." (our balance at dLocal).
 * Not counted, although they also make nothing: 3xxx validation errors (our request or the beneficiary's data: the
 * same data fails elsewhere), 5011 (a payout exists), 5008 limits and 5012, 5013, 5015 compliance (a decline of
 * this beneficiary, never routed around), 5009/5010 (not answers to a create). 7xxx "Transactional error": its
 * rows were not readable; unknown codes count as processed.
 */
export const NOT_PROCESSED_CODES: ReadonlySet<number> = new Set([4001, 4002, 5007, 5014]);

export function payoutNotProcessed(errorCode: number | null | undefined): boolean {
  const c = v3CodeOf(errorCode);
  return c !== null && NOT_PROCESSED_CODES.has(c);
}

/**
 * A create dLocal did not take (its 4xx and code), as what we do about it:
 *  - duplicate: the external_id is already a payout (5011): read it back, never create another;
 *  - misconfigured: our credentials or address (4001, 4002): not about this payout; it waits, ops are paged;
 *  - rejected: a definite no with our failure code (the payout fails and is credited back); `page` when it is our
 *    balance, our account or our request (not a merchant's beneficiary).
 */
export type PixRefusal =
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'misconfigured' }
  | { readonly kind: 'rejected'; readonly code: string; readonly page: boolean };

export function pixRefusalOf(code: number | null): PixRefusal {
  switch (v3CodeOf(code)) {
    case EXTERNAL_ID_USED:
      return { kind: 'duplicate' };
    case 4001:
    case 4002:
      return { kind: 'misconfigured' };
    case 3003: // invalid bank code
      return { kind: 'rejected', code: 'invalid_account', page: false };
    case 3000: // invalid params: our schema checked the beneficiary, so the request shape is off (ours to fix)
    case 3001: // empty params
      return { kind: 'rejected', code: 'rejected_by_provider', page: true };
    case 5007: // country not found for payouts: our account is not enabled for Brazil
      return { kind: 'rejected', code: 'method_not_available', page: true };
    case 5008:
      return { kind: 'rejected', code: 'limit_exceeded', page: false };
    case 5012: // rejected compliance limits
    case 5013: // end beneficiary blacklisted
    case 5015: // rejected due to compliance
      return { kind: 'rejected', code: 'rejected_by_compliance', page: false };
    case 5014: // our balance at dLocal
      return { kind: 'rejected', code: 'provider_balance_insufficient', page: true };
    default:
      return { kind: 'rejected', code: 'rejected_by_provider', page: false };
  }
}

/**
 * A payout read back (reference/payout-status-v3), as our order state: PAID settled; REJECTED and CANCELLED
 * cancelled with our failure code (a rejection's reason where dLocal names one, else our generic code); ON_HOLD and
 * ON_HOLD_BY_COMPLIANCE pending and held; PENDING and DELIVERED ("being processed") pending. dLocal's v3 statuses
 * have no return after PAID.
 */
export function pixOrderStateOf(p: DlocalPayout): ProviderOrderState {
  switch (p.status) {
    case 'PAID':
      return { kind: 'settled', orderId: p.id, ...(p.last_updated ? { at: p.last_updated } : {}) };
    case 'REJECTED':
      return { kind: 'cancelled', orderId: p.id, reason: 'rejected', failureCode: payoutFailureOf(p.status_reason) };
    case 'CANCELLED':
      return { kind: 'cancelled', orderId: p.id, reason: 'cancelled', failureCode: 'cancelled_by_provider' };
    case 'ON_HOLD':
    case 'ON_HOLD_BY_COMPLIANCE':
      return { kind: 'pending', orderId: p.id, held: true };
    default:
      return { kind: 'pending', orderId: p.id, held: false };
  }
}
