/**
 * A payout of ours as the dLocal payouts v3 request (BANK_TRANSFER): Peru (svc-mt-6) and Colombia (svc-mt-32) to
 * a bank account (bank code, account number, checking or savings), Argentina (svc-mt-31) to a CBU or CVU (22
 * digits, sent as the account number; an alias is not a type SPEC.md names). Colombia's payouts count whole pesos
 * (docs/colombia-payouts-v3: amount decimals 0), so cents there are refused here. The same payout always gives the
 * same body, so a resend is the same request. Documents and accounts are never logged.
 */
import type { CurrencyCode } from '../../../domain/geo';
import type { CreatePayoutRequest } from './dlocal.schemas';
import { ALPHA2, dlocalAmount, externalIdOf, LIVE_PAYOUT_METHODS } from './dlocal.transformers';

/** Document types each country's payouts page names (SPEC.md's document_type values that dLocal takes there). */
const DOCUMENT_TYPES: Readonly<Record<'PER' | 'COL' | 'ARG', readonly CreatePayoutRequest['beneficiary']['document']['type'][]>> = {
  PER: ['DNI', 'RUC', 'CE', 'PASS'],
  COL: ['CC', 'NIT', 'CE', 'PASS', 'PEP'],
  ARG: ['CUIT', 'CUIL'],
};

export interface BankPayoutRequest {
  readonly payoutId: string;
  readonly methodCode: string;
  readonly amountMinor: number;
  readonly currency: CurrencyCode;
  readonly beneficiary: {
    readonly name: string;
    readonly document: string;
    readonly documentType: string;
    readonly bankCode?: string;
    readonly accountNumber?: string;
    readonly accountType?: 'checking' | 'savings';
    readonly instantTransferKey?: string;
    readonly instantTransferType?: string;
  };
  readonly description?: string | null;
  /** Our payout notification route. */
  readonly notificationUrl: string;
}

/** First name and the rest (dLocal asks for both); a single word is both. */
export function splitName(name: string): { first_name: string; last_name: string } {
  const words = name.trim().split(/\s+/);
  const first = (words[0] ?? '').slice(0, 50);
  const rest = words.slice(1).join(' ').slice(0, 50);
  return { first_name: first, last_name: rest || first };
}

export function payoutRequestOf(req: BankPayoutRequest): { body: CreatePayoutRequest } | { invalid: string } {
  const m = LIVE_PAYOUT_METHODS[req.methodCode];
  if (!m) return { invalid: 'method_not_available' };
  if (m.currency !== req.currency) return { invalid: 'currency_not_supported' };
  const b = req.beneficiary;
  if (req.currency === 'COP' && req.amountMinor % 100 !== 0) return { invalid: 'amount_not_allowed' };
  const documentType = DOCUMENT_TYPES[m.country].find((t) => t === b.documentType.toUpperCase());
  if (!documentType) return { invalid: 'invalid_beneficiary' };
  const type = b.accountType === 'savings' ? 'SAVINGS' : 'CHECKING';
  let bank: CreatePayoutRequest['beneficiary']['bank_account'];
  if (req.methodCode === 'svc-mt-31') {
    const key = b.instantTransferKey ?? b.accountNumber ?? '';
    if (!/^\d{22}$/.test(key)) return { invalid: 'invalid_account' };
    bank = { account: key, type };
  } else {
    if (!b.bankCode || !b.accountNumber || !b.accountType) return { invalid: 'invalid_account' };
    const account = b.accountNumber.replace(/[\s-]/g, '');
    if (!/^\d{5,22}$/.test(account) || !/^\d{1,5}$/.test(b.bankCode)) return { invalid: 'invalid_account' };
    bank = { account, type, code: b.bankCode };
  }
  return {
    body: {
      external_id: externalIdOf(req.payoutId),
      country: ALPHA2[m.country],
      payment_method_id: 'BANK_TRANSFER',
      amount: dlocalAmount(req.amountMinor, req.currency),
      currency: req.currency,
      // A merchant paying its sellers or customers: dLocal's purposes have no closer one.
      purpose: 'OTHER',
      flow_type: 'B2C',
      ...(req.description ? { description: req.description.slice(0, 100) } : {}),
      notification_url: req.notificationUrl,
      beneficiary: {
        ...splitName(b.name),
        document: { type: documentType, id: b.document.replace(/[^0-9A-Za-z]/g, '') },
        bank_account: bank,
      },
    },
  };
}
