/**
 * Masking of beneficiary data for responses and storage (SPEC.md 2.6: "Document and key values
 * are partially hidden in responses"). Enough is kept to recognise a value, never the whole of it:
 *
 *   email            f***@example.com              (first character, then the domain)
 *   phone            +55*******4321                (country code, last 4 digits)
 *   cpf, cnpj        ***725                        (maskDocument: last 3)
 *   random (EVP)     123e4567-****-****-****-************
 *   clabe, cvu, cbu, account numbers, wallet ids, anything else
 *                    **************1234            (last 4; last 2 when shorter than 8; none below 5)
 */
import { maskDocument } from '../documents';
import type { Beneficiary } from './beneficiary';

/** '*' for every character but the last few: 4 from 8 characters up, 2 from 5 to 7, none below 5. */
export function maskTail(value: string): string {
  const keep = value.length >= 8 ? 4 : value.length >= 5 ? 2 : 0;
  return keep === 0 ? '****' : '*'.repeat(value.length - keep) + value.slice(-keep);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Masks an instant-transfer key (PIX key, CLABE, CVU, CBU) of the given instant_transfer_type. */
export function maskKey(type: string, value: string): string {
  const v = typeof value === 'string' ? value.trim() : '';
  switch (type) {
    case 'email': {
      const at = v.lastIndexOf('@');
      return at < 1 ? maskTail(v) : `${v[0]}***@${v.slice(at + 1)}`;
    }
    case 'phone':
      return v.startsWith('+55') && v.length >= 11 ? `+55*******${v.slice(-4)}` : maskTail(v);
    case 'cpf':
    case 'cnpj':
      return maskDocument(v);
    case 'random':
      return UUID_RE.test(v) ? `${v.slice(0, 8)}-****-****-****-************` : maskTail(v);
    default:
      return maskTail(v);
  }
}

/** The beneficiary as responses show it and as the payout record stores it. */
export interface MaskedBeneficiary {
  readonly name: string;
  readonly document: string;
  readonly document_type: string;
  readonly instant_transfer_key: string | null;
  readonly instant_transfer_type: string | null;
  readonly bank_code: string | null;
  readonly account_number: string | null;
  readonly account_type: string | null;
  readonly wallet_id: string | null;
}

const present = (v: string | null | undefined): v is string => typeof v === 'string' && v.trim() !== '';

export function maskBeneficiary(b: Beneficiary): MaskedBeneficiary {
  return {
    name: b.name.trim(),
    document: maskDocument(b.document),
    document_type: b.document_type,
    instant_transfer_key: present(b.instant_transfer_key) ? maskKey(b.instant_transfer_type ?? '', b.instant_transfer_key) : null,
    instant_transfer_type: present(b.instant_transfer_type) ? b.instant_transfer_type : null,
    bank_code: present(b.bank_code) ? b.bank_code.trim() : null,
    account_number: present(b.account_number) ? maskTail(b.account_number.trim()) : null,
    account_type: present(b.account_type) ? b.account_type : null,
    wallet_id: present(b.wallet_id) ? maskTail(b.wallet_id.trim()) : null,
  };
}
