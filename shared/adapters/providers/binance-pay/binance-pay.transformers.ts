/**
 * Between our domain and Binance Pay's wire: merchantTradeNo / refundRequestId derived from our ids (reversible),
 * decimal amounts (USDT to 8 places, exact, in integer units of 1e-8), what we carry in passThroughInfo, what a
 * status and a refusal code mean to us. Binance's texts (errorMessage) never reach here.
 */
import { CURRENCY_DECIMALS, type CurrencyCode } from '../../../domain/geo';
import type { LocalPaymentOutcome } from '../../../application/providers';
import * as z from '../../../domain/zod';
import { fromReference, toReference } from '../references';
import type { OrderStatus, QueryOrderAnswer } from './binance-pay.schemas';

export const BINANCE_PAY = 'binance_pay';
/** Our crypto method (SPEC.md svc-mt-4), offered in every country. */
export const CRYPTO_METHOD = 'svc-mt-4';

/**
 * merchantTradeNo of a payment: `bp` + the payment id's 16 bytes as a 128-bit number in base 36, zero-padded to
 * 25 characters (36^25 > 2^128): 27 lower-case letters and digits, within the page's "letter or digit, at most 32".
 * Hex (32) would leave no room for a tag; base 36 keeps it case-free, so it survives any case folding.
 */
export function merchantTradeNoOf(paymentId: string): string {
  const hex = toReference(paymentId, 'pi_', '');
  return `bp${BigInt(`0x${hex}`).toString(36).padStart(25, '0')}`;
}

export function paymentIdOfMerchantTradeNo(merchantTradeNo: string): string | null {
  const m = /^bp([0-9a-z]{25})$/.exec(merchantTradeNo.toLowerCase());
  if (!m) return null;
  let n = 0n;
  for (const ch of m[1] as string) n = n * 36n + BigInt(parseInt(ch, 36));
  if (n >= 1n << 128n) return null;
  return fromReference(n.toString(16).padStart(32, '0'), 'pi_', '');
}

/** refundRequestId of a refund: `br` + 32 hex (34 characters; the page allows 64). */
export const refundRequestIdOf = (refundId: string) => toReference(refundId, 're_', 'br');
export const refundIdOfRequestId = (ref: string) => fromReference(ref, 're_', 'br');

// --- Amounts ------------------------------------------------------------------------------------------------

/** USDT (and every amount Binance Pay writes) to 8 decimal places, held as integer units of 1e-8. */
export const USDT_DECIMALS = 8;
const UNIT = 10n ** BigInt(USDT_DECIMALS);

export function unitsOf(decimal: string): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(decimal);
  if (!m) throw new RangeError('not a decimal amount');
  const frac = m[2] ?? '';
  if (frac.length > USDT_DECIMALS && /[1-9]/.test(frac.slice(USDT_DECIMALS))) throw new RangeError('more than 8 decimals');
  return BigInt(m[1] as string) * UNIT + BigInt(frac.slice(0, USDT_DECIMALS).padEnd(USDT_DECIMALS, '0'));
}

/** Units as the shortest decimal string ("12.5", "3"). */
export function decimalOf(units: bigint): string {
  const int = units / UNIT;
  const frac = (units % UNIT).toString().padStart(USDT_DECIMALS, '0').replace(/0+$/, '');
  return frac ? `${int}.${frac}` : `${int}`;
}

/** Our minor units in the payment's currency as the decimal Binance Pay takes (major units). */
export function majorOf(amountMinor: number, currency: CurrencyCode): number {
  const d = CURRENCY_DECIMALS[currency];
  return Number((amountMinor / 10 ** d).toFixed(d));
}

/**
 * The USDT to refund for `amountMinor` of a payment of `paymentAmountMinor` (its own currency) for which `paid`
 * USDT was paid: paid × amountMinor / paymentAmountMinor, rounded down to 8 places; a full refund is exactly paid.
 */
export function refundUnits(paid: bigint, amountMinor: number, paymentAmountMinor: number): bigint {
  if (!Number.isInteger(amountMinor) || !Number.isInteger(paymentAmountMinor) || amountMinor <= 0 || paymentAmountMinor <= 0)
    throw new RangeError('amounts must be positive integers');
  if (amountMinor >= paymentAmountMinor) return paid;
  return (paid * BigInt(amountMinor)) / BigInt(paymentAmountMinor);
}

/**
 * Fiat currencies we price through Binance Pay's quote (fiatAmount + fiatCurrency). The v3 page links its list of
 * supported fiat currencies, which we could not read: each is to confirm in Binance's sandbox, and one it refuses
 * is taken out here, so that a session in it is answered method_not_available before any call
 * (binance-pay.connector.ts create). A USDT session is priced in USDT itself (orderAmount + currency).
 */
export const FIAT_CURRENCIES: ReadonlySet<CurrencyCode> = new Set<CurrencyCode>(['BRL', 'PEN', 'COP', 'CLP', 'MXN', 'USD', 'ARS']);

// --- passThroughInfo ------------------------------------------------------------------------------------------

/**
 * What we carry through the order (passThroughInfo, "returned as-is in query order API and payment webhook"):
 * our payment id and its amount in its own currency. The query answer has no fiat amount, so this is how a
 * read-back knows the payment's own amount without any state of ours.
 */
export const passThroughSchema = z.strictObject({
  p: z.string().check(z.regex(/^pi_[A-Za-z0-9_-]{22}$/)),
  a: z.number().check(z.int(), z.positive()),
  c: z.string().check(z.regex(/^[A-Z]{3,4}$/)),
});
export type PassThrough = z.infer<typeof passThroughSchema>;

export const passThroughOf = (paymentId: string, amountMinor: number, currency: CurrencyCode): string =>
  JSON.stringify({ p: paymentId, a: amountMinor, c: currency });

export function readPassThrough(s: string | null | undefined): PassThrough | null {
  if (!s) return null;
  try {
    const r = z.safeParse(passThroughSchema, JSON.parse(s));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

// --- Statuses -------------------------------------------------------------------------------------------------

/** A mismatch: the payment's amount is not what was paid (the application records it as such). */
export const AMOUNT_MISMATCH = -1;

/**
 * What an order status means for our payment. PAID, and REFUNDING / REFUNDED / FULL_REFUNDED (which imply it was
 * paid), are paid: the payment's own amount (carried in passThroughInfo, and for our merchantTradeNo) when what was
 * paid is what the order asked; AMOUNT_MISMATCH otherwise, or when the order does not carry our amount.
 */
export function outcomeOf(order: QueryOrderAnswer, merchantTradeNo: string): LocalPaymentOutcome {
  switch (order.status as OrderStatus) {
    case 'PAID':
    case 'REFUNDING':
    case 'REFUNDED':
    case 'FULL_REFUNDED': {
      const at = order.transactTime ? new Date(order.transactTime).toISOString() : null;
      const carried = readPassThrough(order.passThroughInfo);
      const ours = carried && paymentIdOfMerchantTradeNo(merchantTradeNo) === carried.p ? carried : null;
      const asked = unitsOf(order.orderAmount);
      const instructions = order.paymentInfo?.paymentInstructions ?? [];
      const other = instructions.some((i) => i.currency === order.currency && unitsOf(i.amount) !== asked);
      return { kind: 'paid', at, amountMinor: ours && !other ? ours.a : AMOUNT_MISMATCH };
    }
    case 'CANCELED':
      return { kind: 'cancelled' };
    case 'EXPIRED':
      return { kind: 'expired' };
    case 'ERROR':
      return { kind: 'failed', code: 'rejected_by_provider' };
    default: // INITIAL, PENDING
      return { kind: 'pending' };
  }
}

// --- Result codes ---------------------------------------------------------------------------------------------

/**
 * Result codes (the "Result Code" tables of Binance Pay's API pages): what is not a refusal of the business but of
 * our call or their system. These leave the outcome unknown (ProviderUnavailable).
 */
export const UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  '400000', // UNKNOWN_ERROR: "try again later"
  '400002', // INVALID_SIGNATURE: our secret_key
  '400003', // INVALID_TIMESTAMP: our clock
  '400004', // INVALID_API_KEY_OR_IP: our api_key or the address Binance sees
  '400005', // BAD_API_KEY_FMT
  '400006', // BAD_HTTP_METHOD
  '400007', // MEDIA_TYPE_NOT_SUPPORTED
  '100001001', // SYS "System abnormality" (the FAQ)
]);
/** merchantTradeNo invalid or duplicated: on a create, the order exists (read it back). */
export const DUPLICATE_TRADE_NO = '400201';
export const ORDER_NOT_FOUND = '400202';

/** A business refusal's result code as our code. */
export function refusalCodeOf(code: string): string {
  switch (code) {
    case '400203': // INVALID_ACCOUNT_STATUS: the merchant account cannot take this
    case '400206': // SUB_MERCHANT_INVALID
      return 'method_not_available';
    default: // 400001 INVALID_REQUEST, 4001xx parameter errors (our bug), and codes we do not know
      return 'rejected_by_provider';
  }
}
