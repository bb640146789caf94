/// <reference lib="dom" />
/**
 * Field checks of the hosted page, with the API's own rules (documents with their
 * check digits, cards by Luhn, brand, length and expiry), returning message keys.
 */
import { BR_STATES } from '../../../../domain/geo';
import { validateCustomerDocument } from '../../../../domain/documents';
import type { CountryCode } from '../../../../domain/geo';
import { cardBrand, validateCard } from '../../../../domain/payments/card';
import type { MessageKey } from '../i18n/en';
import { parseExpiry } from './masks';

export type FieldProblem = { key: MessageKey; vars?: Record<string, string | number> } | null;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;
const PHONE = /^\+?[0-9 ()-]{6,30}$/;

export function checkCustomerField(name: string, raw: string, country: CountryCode, documentLabel: string): FieldProblem {
  const value = raw.trim();
  switch (name) {
    case 'name':
      return value.length >= 2 ? null : { key: value ? 'error.name' : 'error.required' };
    case 'email':
      return EMAIL.test(value) ? null : { key: value ? 'error.email' : 'error.required' };
    case 'phone':
      return !value || PHONE.test(value) ? null : { key: 'error.phone' };
    case 'document':
      if (!value) return { key: 'error.required' };
      return validateCustomerDocument(country, value).valid ? null : { key: 'error.document', vars: { document: documentLabel } };
    default:
      return null;
  }
}

/** The boleto payer's address, with the API's rules (CEP 8 digits, a Brazilian state, the rest present). */
export function checkAddressField(name: string, raw: string): FieldProblem {
  const value = raw.trim();
  if (!value) return { key: 'error.required' };
  if (name === 'postal_code') return /^\d{5}-?\d{3}$/.test(value) ? null : { key: 'error.postal_code' };
  if (name === 'state') return (BR_STATES as readonly string[]).includes(value.toUpperCase()) ? null : { key: 'error.state' };
  return (name === 'street' || name === 'city') && value.length < 2 ? { key: 'error.required' } : null;
}

export interface CardFields {
  readonly number: string;
  readonly expiry: string;
  readonly cvc: string;
  readonly holder: string;
}

/** Problems per card field (number, expiry, cvc, holder), by validateCard, the function the API runs. */
export function checkCard(f: CardFields, now: Date): Partial<Record<keyof CardFields, FieldProblem>> {
  const number = f.number.replace(/\D/g, '');
  const expiry = parseExpiry(f.expiry);
  const errors = validateCard(
    { number, holder_name: f.holder, expiry_month: expiry?.month ?? '', expiry_year: expiry?.year ?? '', cvv: f.cvc.trim() },
    now,
  );
  const out: Partial<Record<keyof CardFields, FieldProblem>> = {};
  for (const e of errors) {
    if (e.field === 'card.number') {
      out.number = {
        key: !number ? 'error.required' : /^\d{13,19}$/.test(number) && !cardBrand(number) ? 'error.card_brand' : 'error.card_number',
      };
    } else if (e.field === 'card.expiry_month' || e.field === 'card.expiry_year') {
      out.expiry = { key: !f.expiry ? 'error.required' : expiry && /expired/.test(e.message) ? 'error.expired' : 'error.expiry' };
    } else if (e.field === 'card.cvv') {
      out.cvc = { key: 'error.cvc', vars: { digits: cardBrand(number) === 'amex' ? 4 : 3 } };
    } else if (e.field === 'card.holder_name') {
      out.holder = { key: 'error.holder' };
    }
  }
  return out;
}
