/**
 * Beneficiary validation for a payout method or a refund-only rail (SPEC.md 2.6, 4.4 items 1 and 6, 7). Pure.
 *
 * Two kinds of failure, reported separately so the caller can pick the error code:
 *
 * MALFORMED -> VALIDATION_ERROR (400): the request cannot be read as a beneficiary of this method.
 *   - beneficiary not an object; a field that is present but not a string;
 *   - a field the method requires is missing or blank (required fields: PayoutMethodInfo.required_fields);
 *   - name shorter than 2 or longer than 100 characters (after trimming), or with control characters;
 *   - document_type / instant_transfer_type not one the method accepts (e.g. CURP for PIX, cbu for SPEI);
 *   - account_type not checking | savings;
 *   - a value whose shape is impossible for its declared type: a document of the wrong length or
 *     characters for its document_type (CPF not 11 digits, CURP not 18 letters/digits, ...);
 *     a PIX cpf / cnpj key not 11 digits / 14 characters; a CLABE not 18 digits; a CVU/CBU not
 *     22 digits; a bank_code not 3-4 digits; an account_number not 6-20 digits.
 *
 * INVALID -> INVALID_BENEFICIARY (400): well-formed, but not a real one.
 *   - the document fails its check digits or content rules (validateDocument with the method's
 *     country: CPF/CNPJ/RUC/CUIT check digits, all-same-digit CPFs, RUC/CUIT prefixes, CURP date,
 *     state and check character, CC with a leading zero, CE without a digit);
 *   - a PIX key that does not match its type: cpf / cnpj check digits; email not an address
 *     (or longer than 77 characters, the DICT limit); phone not +55, a 2-digit area code without
 *     zeros, then 8 digits or a 9-digit mobile starting with 9; random not an EVP UUID
 *     (8-4-4-4-12 hex, any case). Email, phone and random keys have no fixed shape beyond
 *     that rule, so every failure of theirs counts as invalid;
 *   - a CLABE whose check digit does not match; a CVU/CBU whose block check digits do not
 *     match, a "cvu" that does not start with 000 or a "cbu" that does (that is a CVU).
 *
 * Documents may be written with dots, dashes, slashes or spaces (validateDocument normalizes);
 * keys are identifiers passed to the rail as they are, so no punctuation is stripped from them
 * (surrounding whitespace is trimmed from every field, as the request schema does). Fields the
 * method does not use are ignored beyond their type. Bank transfers are checked for shape only.
 */
import { normalizeDocument, validateDocument, type DocumentCountry, type DocumentType } from '../documents';
import type { FieldError } from '../errors';
import { isValidClabe } from '../payments/clabe';
import {
  ACCOUNT_TYPES,
  BENEFICIARY_FIELDS,
  type BeneficiaryField,
  type BeneficiaryRail,
  type InstantTransferType,
} from '../catalog/payout-methods';
import { isValidCbu } from './cbu';

/** A beneficiary after validation: the SPEC.md 2.6 object, strings throughout. */
export interface Beneficiary {
  readonly name: string;
  readonly document: string;
  readonly document_type: string;
  readonly instant_transfer_key?: string | null;
  readonly instant_transfer_type?: string | null;
  readonly bank_code?: string | null;
  readonly account_number?: string | null;
  readonly account_type?: string | null;
  readonly wallet_id?: string | null;
}

export interface BeneficiaryCheck {
  /** Shape errors: answer VALIDATION_ERROR. */
  readonly malformed: FieldError[];
  /** Content errors (check digits, key rules): answer INVALID_BENEFICIARY when `malformed` is empty. */
  readonly invalid: FieldError[];
  /** The document is present, well-formed and passes its checks. */
  readonly document_valid: boolean;
  /** The instant-transfer key is present and valid; null when the method takes no key. */
  readonly key_valid: boolean | null;
}

const field = (f: BeneficiaryField | '') => (f ? `beneficiary.${f}` : 'beneficiary');

/** What a document of each type can look like (normalized), whatever its check digits. */
const DOCUMENT_SHAPES: Partial<Record<DocumentType, RegExp>> = {
  CPF: /^\d{11}$/,
  CNPJ: /^[\dA-Z]{12}\d{2}$/,
  RUC: /^\d{11}$/,
  CUIT: /^\d{11}$/,
  CURP: /^[A-Z\d]{18}$/,
  CC: /^\d{6,10}$/,
  CE: /^[A-Z\d]{6,12}$/,
  RUT: /^[1-9]\d{5,7}[\dK]$/,
  CI: /^\d{10}$/,
};
const documentShape = (type: DocumentType, country: DocumentCountry): RegExp =>
  type === 'DNI' ? (country === 'PER' ? /^\d{8}$/ : /^\d{7,8}$/) : (DOCUMENT_SHAPES[type] ?? /^[\dA-Z]{1,30}$/);

// DICT-style email: dot-atom local part (≤ 64) and a dotted hostname with an alphabetic TLD.
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const EMAIL_RE = new RegExp(`^(?=[^@]{1,64}@)${ATOM}(?:\\.${ATOM})*@(?:${LABEL}\\.)+[A-Za-z]{2,63}$`);
export const PIX_EMAIL_MAX = 77;
/** +55, area code 11-99 without zeros, then a landline (8 digits, 2-8 first) or a mobile (9 digits, 9 first). */
const BR_PHONE_RE = /^\+55[1-9]{2}(?:9\d{8}|[2-8]\d{7})$/;
const EVP_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type KeyCheck = { ok: true } | { ok: false; kind: 'malformed' | 'invalid'; message: string };
const OK: KeyCheck = { ok: true };
const malformedKey = (message: string): KeyCheck => ({ ok: false, kind: 'malformed', message });
const invalidKey = (message: string): KeyCheck => ({ ok: false, kind: 'invalid', message });

/** Checks an instant-transfer key against its declared type (the type is known to be allowed). */
export function checkInstantTransferKey(type: InstantTransferType, key: string): KeyCheck {
  switch (type) {
    case 'cpf':
      if (!/^\d{11}$/.test(key)) return malformedKey('A CPF key is 11 digits, without dots or dashes.');
      return validateDocument('CPF', key).valid ? OK : invalidKey('This CPF key is not a valid CPF: please check the number.');
    case 'cnpj':
      if (!/^[\dA-Za-z]{12}\d{2}$/.test(key)) return malformedKey('A CNPJ key is 14 characters, without dots, slashes or dashes.');
      return validateDocument('CNPJ', key).valid ? OK : invalidKey('This CNPJ key is not a valid CNPJ: please check the number.');
    case 'email':
      if (key.length > PIX_EMAIL_MAX) return invalidKey(`An email key has at most ${PIX_EMAIL_MAX} characters.`);
      return EMAIL_RE.test(key) ? OK : invalidKey('This is not a valid email address.');
    case 'phone':
      return BR_PHONE_RE.test(key) ? OK : invalidKey('A phone key is +55, the area code and the number, like +5511987654321.');
    case 'random':
      return EVP_RE.test(key) ? OK : invalidKey('A random key is a UUID, like 123e4567-e89b-12d3-a456-426614174000.');
    case 'clabe':
      if (!/^\d{18}$/.test(key)) return malformedKey('A CLABE has 18 digits.');
      return isValidClabe(key) ? OK : invalidKey('This CLABE is not valid: the check digit does not match.');
    case 'cvu':
    case 'cbu': {
      const label = type.toUpperCase();
      if (!/^\d{22}$/.test(key)) return malformedKey(`A ${label} has 22 digits.`);
      if (!isValidCbu(key)) return invalidKey(`This ${label} is not valid: the check digits do not match.`);
      if (type === 'cvu' && !key.startsWith('000'))
        return invalidKey('A CVU starts with 000; this is a CBU, so set instant_transfer_type to cbu.');
      if (type === 'cbu' && key.startsWith('000'))
        return invalidKey('This is a CVU (it starts with 000), so set instant_transfer_type to cvu.');
      return OK;
    }
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (values: readonly string[]) => values.join(', ');

export function validateBeneficiary(method: BeneficiaryRail, input: unknown): BeneficiaryCheck {
  const use = `${method.name} ${method.refunds_only ? 'refunds' : 'payouts'}`;
  const malformed: FieldError[] = [];
  const invalid: FieldError[] = [];
  const takesKey = method.instant_transfer_types.length > 0;
  if (!isRecord(input)) {
    malformed.push({ field: field(''), message: 'beneficiary must be an object.' });
    return { malformed, invalid, document_valid: false, key_valid: takesKey ? false : null };
  }

  // Present fields as trimmed strings; a non-string is malformed, a blank string counts as absent.
  const values: Partial<Record<BeneficiaryField, string>> = {};
  const wrongType = new Set<BeneficiaryField>();
  for (const f of BENEFICIARY_FIELDS) {
    const v = input[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') {
      wrongType.add(f);
      malformed.push({ field: field(f), message: `${f} must be a string.` });
    } else if (v.trim() !== '') {
      values[f] = v.trim();
    }
  }
  for (const f of method.required_fields) {
    if (values[f] === undefined && !wrongType.has(f)) malformed.push({ field: field(f), message: `${f} is required for ${use}.` });
  }
  const requires = (f: BeneficiaryField) => method.required_fields.includes(f);

  const { name } = values;
  if (name !== undefined) {
    const length = [...name].length;
    if (length < 2 || length > 100) malformed.push({ field: field('name'), message: 'name must have 2 to 100 characters.' });
    // eslint-disable-next-line no-control-regex
    else if (/[\u0000-\u001f\u007f]/.test(name))
      malformed.push({ field: field('name'), message: 'name must not contain control characters.' });
  }

  // Document: the type must be one the method accepts; then shape (malformed) and checks (invalid).
  let document_valid = false;
  const docType = values.document_type;
  const typeAllowed = docType !== undefined && (method.document_types as readonly string[]).includes(docType);
  if (docType !== undefined && !typeAllowed) {
    malformed.push({
      field: field('document_type'),
      message: `document_type must be one of ${list(method.document_types)} for ${use}.`,
    });
  }
  const doc = values.document;
  if (doc !== undefined && typeAllowed) {
    const type = docType as DocumentType;
    const country: DocumentCountry = method.country;
    const check = validateDocument(type, doc, country);
    const message = check.message ?? `This ${type} is not valid.`;
    if (!documentShape(type, country).test(normalizeDocument(doc))) malformed.push({ field: field('document'), message });
    else if (!check.valid) invalid.push({ field: field('document'), message });
    else document_valid = true;
  }

  // Instant-transfer key (PIX key, CLABE, CVU/CBU).
  let key_valid: boolean | null = null;
  if (takesKey) {
    key_valid = false;
    const keyType = values.instant_transfer_type;
    const keyTypeAllowed = keyType !== undefined && (method.instant_transfer_types as readonly string[]).includes(keyType);
    if (keyType !== undefined && !keyTypeAllowed) {
      malformed.push({
        field: field('instant_transfer_type'),
        message: `instant_transfer_type must be one of ${list(method.instant_transfer_types)} for ${use}.`,
      });
    }
    const key = values.instant_transfer_key;
    if (key !== undefined && keyTypeAllowed) {
      const check = checkInstantTransferKey(keyType as InstantTransferType, key);
      if (check.ok) key_valid = true;
      else (check.kind === 'malformed' ? malformed : invalid).push({ field: field('instant_transfer_key'), message: check.message });
    }
  }

  // Traditional bank transfer: shape only.
  if (requires('bank_code') && values.bank_code !== undefined && !/^\d{3,4}$/.test(values.bank_code)) {
    malformed.push({ field: field('bank_code'), message: 'bank_code must be 3 or 4 digits.' });
  }
  if (requires('account_number') && values.account_number !== undefined && !/^\d{6,20}$/.test(values.account_number)) {
    malformed.push({ field: field('account_number'), message: 'account_number must be 6 to 20 digits.' });
  }
  if (
    requires('account_type') &&
    values.account_type !== undefined &&
    !(ACCOUNT_TYPES as readonly string[]).includes(values.account_type)
  ) {
    malformed.push({ field: field('account_type'), message: `account_type must be one of ${list(ACCOUNT_TYPES)}.` });
  }

  const order = (e: FieldError) => BENEFICIARY_FIELDS.indexOf(e.field.slice('beneficiary.'.length) as BeneficiaryField);
  malformed.sort((a, b) => order(a) - order(b));
  return { malformed, invalid, document_valid, key_valid };
}

/** Field errors as one sentence for an error message: `beneficiary.x why; beneficiary.y why.` (one final period). */
export const describeFieldErrors = (errors: readonly FieldError[]) =>
  `${errors.map((e) => `${e.field} ${e.message.replace(/\.$/, '')}`).join('; ')}.`;
