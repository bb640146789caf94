/**
 * Between our domain and dLocal's wire: order_id / external_id derived from our ids (reversible), amounts in
 * dLocal's major units, the live method table (our method code + country -> dLocal payment_method_id and flow),
 * and what a status and a rejection code mean to us. dLocal's texts (status_detail, message) never leave here.
 */
import { CURRENCY_DECIMALS, type CountryCode, type CurrencyCode } from '../../../domain/geo';
import { WALLET_CHOICES, type LocalPaymentOutcome, type WalletChoice } from '../../../application/providers';
import { fromReference, toReference } from '../references';
import type { DlocalMethodId, DlocalPayment, DlocalPayout, PaymentStatus } from './dlocal.schemas';

/** order_id of a payment: `dp` + 32 hex (34 characters: within dLocal's order_id, letters and digits only). */
export const orderIdOf = (paymentId: string) => toReference(paymentId, 'pi_', 'dp');
export const paymentIdOfOrderId = (orderId: string) => fromReference(orderId, 'pi_', 'dp');
/** Our reference of a refund, sent as dLocal's order_refund_id. */
export const refundReferenceOf = (refundId: string) => toReference(refundId, 're_', 'dr');
export const refundIdOfReference = (ref: string) => fromReference(ref, 're_', 'dr');
/** external_id of a payout: `do` + 32 hex (dLocal allows up to 100 characters). */
export const externalIdOf = (payoutId: string) => toReference(payoutId, 'po_', 'do');
export const payoutIdOfExternalId = (externalId: string) => fromReference(externalId, 'po_', 'do');

/** Our minor units as dLocal's amount (major units, at most 2 decimals). */
export function dlocalAmount(amountMinor: number, currency: CurrencyCode): number {
  const d = CURRENCY_DECIMALS[currency];
  return Number((amountMinor / 10 ** d).toFixed(d));
}

export function minorOf(amount: number, currency: CurrencyCode): number {
  return Math.round(amount * 10 ** CURRENCY_DECIMALS[currency]);
}

export const ALPHA2: Readonly<Record<CountryCode, string>> = {
  BRA: 'BR',
  PER: 'PE',
  COL: 'CO',
  CHL: 'CL',
  MEX: 'MX',
  ECU: 'EC',
  ARG: 'AR',
};

/**
 * What the shopper is given: a page of dLocal's (or the bank's or wallet's) to go to, a ticket to pay elsewhere, or a
 * QR our page shows (its content, from dLocal's DIRECT answer).
 */
export type DlocalArtefactKind = 'redirect' | 'ticket' | 'qr';

export interface LiveMethod {
  readonly country: CountryCode;
  readonly currency: CurrencyCode;
  readonly paymentMethodId: DlocalMethodId;
  readonly flow: 'DIRECT' | 'REDIRECT';
  readonly artefact: DlocalArtefactKind;
  /**
   * A method served by several wallets (svc-mt-9 in Brazil): the payment_method_id of each, in WALLET_CHOICES order.
   * `paymentMethodId` is then the first's; the one sent is the shopper's choice among those the account serves.
   */
  readonly wallets?: Readonly<Record<WalletChoice, DlocalMethodId>>;
}

/**
 * The live pay-in methods through dLocal, each row from dLocal's own country page (payment_method_id,
 * payment_method_type, allowed flows). "Read" means the row was read on the page; "UNCONFIRMED" means the page
 * names the method but the copy read here ended before its row, so the id is to be read on the page (or from
 * dLocal's GET /payments-methods?country=, reference/payment-method-object) before going live: a wrong id is refused
 * by dLocal (method not available) and the payment fails; no money moves.
 *   Peru (https://docs.dlocal.com/docs/peru): EF Pago Efectivo TICKET DIRECT|REDIRECT (svc-mt-12); IO bank transfer
 *     (Payvalida) BANK_TRANSFER REDIRECT (svc-mt-11); YP Yape WALLET REDIRECT (svc-mt-13); BC BCP BANK_TRANSFER
 *     "Bank Transfer Online" REDIRECT (svc-mt-3, our online-banking `payin` kind): the page lists BCP among its
 *     alternative payments; id, type and flow read on dLocal's own Peru table (docs.dlocal.com api-documentation
 *     payment-methods/peru, kept in github.com/fmazzoli-dlocal/documentation, payment-methods/peru.md, beside
 *     IB Interbank and BP BBVA). No extra request field.
 *   Colombia (https://docs.dlocal.com/docs/colombia): PC PSE BANK_TRANSFER REDIRECT (svc-mt-14, the `pse` kind); QP Nequi
 *     WALLET REDIRECT; EY Efecty TICKET DIRECT|REDIRECT. svc-mt-17 (`bank_transfer` in COL) = Bre-B QR, which the
 *     page lists among its alternative payments ("Efecty PSE Bancolombia Nequi Nequi QR Mercado Pago Bre-B QR"): a
 *     QR the shopper scans from any bank app, so DIRECT (our page shows it, as it shows PIX's) and the `qr` artefact
 *     from the answer's ticket (`ticket.qr_code`, or `ticket.number` when it is the EMVCo payload, with
 *     `ticket.expiration_date`; the ticket object of dLocal's DIRECT APM answers, docs/bank-transfer-payment and
 *     docs/pix-payments). UNCONFIRMED: the id (BQ here), the type (BANK_TRANSFER here) and which ticket field holds the
 *     QR content. dLocal's Bre-B with Biometrics (docs/colombia-breb-biometrics: QO one-shot, QF recurring, TICKET,
 *     REDIRECT to an authentication service) is another product, not this row.
 *   Brazil (https://docs.dlocal.com/docs/brazil; below its card table the page lists Boleto, Pix, Pix via Open
 *     Finance (PISP/ITP), Pix Automático, SmartPix, Pix with Biometrics, Mercado Pago, PicPay, NuPay, Pagaleve):
 *     svc-mt-7 (`bank_transfer` in BRA) = Pix via Open Finance, REDIRECT to the shopper's bank (the Open Finance
 *     payment initiation journey), UNCONFIRMED id OF, type BANK_TRANSFER; svc-mt-9 (`wallet` in BRA) = Mercado Pago
 *     (MP: the id dLocal's Colombia page gives Mercado Pago; UNCONFIRMED for Brazil), PicPay (UNCONFIRMED id PP) and
 *     NuPay (UNCONFIRMED id NU), each REDIRECT to the wallet's app; the account serves those in `dlocal.wallets`
 *     (default all three, in that order) and the shopper's `wallet` picks one (default the first served). Brazil's
 *     plain Pix (PQ) is a PIX rail of its own (dlocal.pix-payins.ts, svc-mt-1 beside the API Pix PSPs); Boleto (BL) stays with Adyen.
 *   Chile (https://docs.dlocal.com/docs/chile): WP Webpay BANK_TRANSFER REDIRECT (IO Khipu is the other); SP Servipag
 *     TICKET DIRECT|REDIRECT.
 *   Argentina (https://docs.dlocal.com/docs/argentina): IO Bank Transfer BANK_TRANSFER DIRECT|REDIRECT (REDIRECT used:
 *     dLocal's page shows the transfer details) serves svc-mt-25, our Argentine bank transfer (`bank_transfer` in
 *     ARG). Cash there is RP Rapipago, but SPEC.md names no Argentine cash code.
 * Left out: svc-mt-26 (Ecuador bank transfer, `bank_transfer` in ECU, USD; the sandbox serves it as the other bank
 * transfers). dLocal's Ecuador page (https://docs.dlocal.com/docs/ecuador) lists "Pago Efectivo" and "Deuna" among
 * its alternative payments, but the copy read here ends before the Deuna row, so its payment_method_type could not be
 * read; dLocal's older Ecuador table lists only EF Pago Efectivo (TICKET), and Deuna is a wallet app. DESIGN.md 9.1
 * serves svc-mt-26 through Deuna only where dLocal types it a bank payment, so until that row is read as
 * BANK_TRANSFER, svc-mt-26 answers METHOD_NOT_AVAILABLE live and discovery does not offer it.
 */
export const LIVE_METHODS: Readonly<Record<string, LiveMethod>> = {
  'svc-mt-3': { country: 'PER', currency: 'PEN', paymentMethodId: 'BC', flow: 'REDIRECT', artefact: 'redirect' },
  'svc-mt-7': { country: 'BRA', currency: 'BRL', paymentMethodId: 'OF', flow: 'REDIRECT', artefact: 'redirect' },
  'svc-mt-9': {
    country: 'BRA',
    currency: 'BRL',
    paymentMethodId: 'MP',
    flow: 'REDIRECT',
    artefact: 'redirect',
    wallets: { mercado_pago: 'MP', picpay: 'PP', nupay: 'NU' },
  },
  'svc-mt-11': { country: 'PER', currency: 'PEN', paymentMethodId: 'IO', flow: 'REDIRECT', artefact: 'redirect' },
  'svc-mt-12': { country: 'PER', currency: 'PEN', paymentMethodId: 'EF', flow: 'DIRECT', artefact: 'ticket' },
  'svc-mt-13': { country: 'PER', currency: 'PEN', paymentMethodId: 'YP', flow: 'REDIRECT', artefact: 'redirect' },
  'svc-mt-14': { country: 'COL', currency: 'COP', paymentMethodId: 'PC', flow: 'REDIRECT', artefact: 'redirect' },
  'svc-mt-15': { country: 'COL', currency: 'COP', paymentMethodId: 'QP', flow: 'REDIRECT', artefact: 'redirect' },
  'svc-mt-16': { country: 'COL', currency: 'COP', paymentMethodId: 'EY', flow: 'DIRECT', artefact: 'ticket' },
  'svc-mt-17': { country: 'COL', currency: 'COP', paymentMethodId: 'BQ', flow: 'DIRECT', artefact: 'qr' },
  'svc-mt-18': { country: 'CHL', currency: 'CLP', paymentMethodId: 'WP', flow: 'REDIRECT', artefact: 'redirect' },
  'svc-mt-19': { country: 'CHL', currency: 'CLP', paymentMethodId: 'SP', flow: 'DIRECT', artefact: 'ticket' },
  'svc-mt-25': { country: 'ARG', currency: 'ARS', paymentMethodId: 'IO', flow: 'REDIRECT', artefact: 'redirect' },
};

export const liveMethodOf = (methodCode: string, country: CountryCode): LiveMethod | null => {
  const m = LIVE_METHODS[methodCode];
  return m && m.country === country ? m : null;
};

/**
 * The wallets the account serves for a live method, in the order the page offers them: `dlocal.wallets` as
 * configured (each once), default all of WALLET_CHOICES in that order; [] for a method that is not a wallet choice.
 */
export function servedWallets(m: LiveMethod | null, configured: readonly WalletChoice[] | undefined): readonly WalletChoice[] {
  if (!m?.wallets) return [];
  return [...new Set(configured ?? WALLET_CHOICES)];
}

/** The payment_method_id to send: the chosen wallet's (default the first served), or null when it is not served. */
export function methodIdFor(m: LiveMethod, served: readonly WalletChoice[], wallet: WalletChoice | undefined): DlocalMethodId | null {
  if (!m.wallets) return wallet === undefined ? m.paymentMethodId : null;
  const chosen = wallet ?? served[0];
  return chosen !== undefined && served.includes(chosen) ? m.wallets[chosen] : null;
}

/**
 * Live payout methods: dLocal payouts v3 BANK_TRANSFER in the country's currency (docs/peru-payouts-v3,
 * docs/colombia-payouts-v3, docs/argentina-payouts-v3: bank transfers to a CCI, an account, a CBU/CVU).
 */
export const LIVE_PAYOUT_METHODS: Readonly<Record<string, { country: 'PER' | 'COL' | 'ARG'; currency: CurrencyCode }>> = {
  'svc-mt-6': { country: 'PER', currency: 'PEN' },
  'svc-mt-31': { country: 'ARG', currency: 'ARS' },
  'svc-mt-32': { country: 'COL', currency: 'COP' },
};

/**
 * A REJECTED payment's status_code (dLocal's "Rejection status" table, 300-3xx) as our failure code. The APM
 * rejections we can meet are the bank's, limits, risk and the payer's account; the card-only ones fall to the
 * generic code.
 */
export function failureCodeOf(statusCode: string | undefined): string {
  switch (statusCode) {
    case '302': // insufficient amount
      return 'insufficient_funds';
    case '304': // score validation
    case '317': // high risk
    case '303': // blacklisted
      return 'rejected_by_risk';
    case '305': // max attempts
    case '325': // frequency limit
    case '319': // amount exceeded
      return 'limit_exceeded';
    case '307': // duplicated payment
      return 'duplicate_payment';
    case '322': // wallet disabled
    case '323': // invalid user account
    case '324': // invalid PIN
    case '326': // user account disabled or blocked
      return 'payer_account_invalid';
    case '301': // rejected by bank
    case '321': // error in acquirer
      return 'rejected_by_bank';
    default:
      return 'rejected_by_provider';
  }
}

/** A pay-in as we read it back: what our payment should become (the application's LocalPaymentOutcome). */
export type DlocalPaymentOutcome = LocalPaymentOutcome;

export function outcomeOfStatus(
  status: PaymentStatus,
  statusCode: string | undefined,
  p: Pick<DlocalPayment, 'amount' | 'currency' | 'approved_date'>,
): DlocalPaymentOutcome {
  switch (status) {
    case 'PAID':
      return { kind: 'paid', at: p.approved_date ?? null, amountMinor: minorOf(p.amount, p.currency as CurrencyCode) };
    case 'REJECTED':
      return { kind: 'failed', code: failureCodeOf(statusCode) };
    case 'CANCELLED':
      return { kind: 'cancelled' };
    case 'EXPIRED':
      return { kind: 'expired' };
    // AUTHORIZED (a card held for capture) and VERIFIED (a card verified for zero) are card states we never ask
    // for: the payment is still open, as PENDING.
    default:
      return { kind: 'pending' };
  }
}

/** A payout as we read it back. */
export type DlocalPayoutState =
  | { readonly kind: 'not_found' }
  | { readonly kind: 'pending'; readonly orderId: string; readonly held: boolean }
  | { readonly kind: 'settled'; readonly orderId: string; readonly at?: string }
  | { readonly kind: 'rejected'; readonly orderId: string; readonly reason: string }
  | { readonly kind: 'cancelled'; readonly orderId: string; readonly reason: string };

/** A rejected payout's reason (dLocal's v2 rejection names, where it gives one) as our failure reason. */
export function payoutFailureOf(reason: string | undefined): string {
  switch (reason) {
    case 'ERROR_ACCOUNT_INCORRECT':
    case 'ERROR_ACCOUNT_CLOSED':
    case 'ERROR_BANK_INVALID':
    case 'ERROR_BANK_BRANCH_INCORRECT':
      return 'invalid_account';
    case 'ERROR_BENEFICIARY_DOCUMENT_ID_INVALID':
    case 'ERROR_BENEFICIARY_NAME_INCORRECT':
      return 'invalid_beneficiary';
    case 'ERROR_AMOUNT_INCORRECT':
      return 'amount_not_allowed';
    default:
      return 'rejected_by_provider';
  }
}

export function payoutStateOf(p: DlocalPayout): DlocalPayoutState {
  switch (p.status) {
    case 'PAID':
      return { kind: 'settled', orderId: p.id, ...(p.last_updated ? { at: p.last_updated } : {}) };
    case 'REJECTED':
      return { kind: 'rejected', orderId: p.id, reason: payoutFailureOf(p.status_reason) };
    case 'CANCELLED':
      return { kind: 'cancelled', orderId: p.id, reason: 'cancelled_by_provider' };
    case 'ON_HOLD':
    case 'ON_HOLD_BY_COMPLIANCE':
      return { kind: 'pending', orderId: p.id, held: true };
    default: // PENDING, DELIVERED (sent to the bank, being processed)
      return { kind: 'pending', orderId: p.id, held: false };
  }
}

/** A business refusal of a call (HTTP 4xx `code`, reference/http-errors-payments and reference/error-codes) as our code. */
export function refusalCodeOf(code: number | null): string {
  // 5001 missing parameter, 5000 invalid request and the like are our bug, not the payer's: generic code.
  switch (code) {
    case 5003: // country not supported
    case 5004: // currency not allowed for the country
    case 5010: // method not available
    case 5013: // unsupported operation
      return 'method_not_available';
    case 5005: // user unauthorized (cadastral situation)
      return 'payer_not_allowed';
    case 5006: // user limit exceeded
    case 5007: // amount exceeded
    case 508: // payouts: limit exceeded
      return 'limit_exceeded';
    case 512: // payouts: compliance limits
    case 513: // payouts: beneficiary blacklisted
    case 515: // payouts: rejected due to compliance
      return 'rejected_by_compliance';
    case 514: // payouts: insufficient funds (our balance at dLocal)
    case 5012:
      return 'provider_insufficient_funds';
    case 303: // payouts: invalid bank code
      return 'invalid_account';
    default:
      return 'rejected_by_provider';
  }
}
