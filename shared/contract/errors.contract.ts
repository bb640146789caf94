/**
 * Which error codes each route can answer (its own, from routes.contract.ts, plus those of its kind),
 * and the error-code reference: the one error table (domain/errors.ts) with what a merchant should do.
 */
import { ERRORS, type ErrorCode } from '../domain/errors';
import type { ErrorFamily, RouteDefinition } from '../manifest/route-types';
import type { RouteContract } from './routes.contract';

/** What the merchant does about each code. Typed over every code, so a new code cannot ship undocumented. */
export const ERROR_ACTIONS: Readonly<Record<ErrorCode, string>> = {
  UNAUTHORIZED: 'Send a valid key in X-API-Key or Authorization: Bearer; check it was not revoked.',
  FORBIDDEN: 'Use a key with the scope the route needs (or a sk_test_ key for sandbox routes).',
  MERCHANT_INACTIVE: 'Contact support: the account is deactivated.',
  MERCHANT_NOT_FOUND: 'Check the merchant id in the path; it must be the one your key belongs to.',
  VALIDATION_ERROR: 'Fix the fields named in details (or detail) and send again; nothing was written.',
  NOT_FOUND: 'Check the path against the reference.',
  METHOD_NOT_ALLOWED: 'Use one of the methods in the Allow header.',
  COUNTRY_NOT_SUPPORTED: 'Use a country enabled for your account (GET /api/v1/methods lists them).',
  METHOD_NOT_AVAILABLE: 'Use a method enabled for your account, country and currency (discovery endpoints).',
  AMOUNT_LIMIT_EXCEEDED: 'Keep the amount within the method’s min_amount and max_amount.',
  SESSION_NOT_FOUND: 'Check the session id; sessions belong to the merchant that created them.',
  SESSION_EXPIRED: 'Create a new checkout session.',
  SESSION_NOT_PENDING: 'The session already has a result; read it with GET /api/v1/checkout/{session_id}.',
  PAYMENT_NOT_FOUND: 'Check the payment id; payments belong to the merchant that created them.',
  PAYMENT_STATE_CONFLICT: 'Read the payment’s status; the action is not allowed from it.',
  CARD_DECLINED: 'Ask the shopper for another card or method.',
  INSUFFICIENT_FUNDS: 'Ask the shopper for another card or method.',
  EXPIRED_CARD: 'Ask the shopper to check the expiry date or use another card.',
  INCORRECT_CVC: 'Ask the shopper to re-enter the security code.',
  AUTHENTICATION_FAILED: 'The shopper failed 3-D Secure; offer to try again or another method.',
  INVALID_BENEFICIARY: 'Fix the beneficiary fields named in details (POST /api/v1/payout/validate-beneficiary checks first).',
  INSUFFICIENT_BALANCE: 'Wait for settled pay-ins or lower the amount; GET /api/v1/balance shows what is available.',
  PAYOUT_NOT_FOUND: 'Check the payout id; payouts belong to the merchant that created them.',
  CANNOT_CANCEL: 'Only pending payouts can be cancelled; wait for its final status.',
  PAYOUT_STATE_CONFLICT: 'Read the payout’s status; it already moved on.',
  REFUND_NOT_FOUND: 'Check the refund id.',
  PAYMENT_NOT_REFUNDABLE: 'Only successful payments with an amount left can be refunded; read refunded_amount.',
  REFUND_AMOUNT_EXCEEDED: 'Refund at most amount minus refunded_amount.',
  REFUND_WINDOW_EXPIRED: 'Return the money outside the API (PIX: 90 days, other methods: 180).',
  MANDATE_NOT_FOUND: 'Check the mandate id; mandates belong to the merchant and mode that created them.',
  MANDATE_NOT_ACTIVE: 'Charge only an active mandate: wait for mandate.approved, or ask the payer to approve a new one.',
  MANDATE_STATE_CONFLICT: 'Read the mandate’s status; it already ended.',
  MANDATE_CYCLE_ALREADY_CHARGED:
    'One charge per billing cycle: read the cycle’s charge. Pix Automático retries a failed one itself (retry_3_in_7_days); a card ' +
    'mandate under that policy may be charged again up to 3 times within 7 days of the due date.',
  MANDATE_AMOUNT_EXCEEDED: 'Charge at most the mandate’s max_amount (variable), or exactly its amount (fixed).',
  DUE_DATE_OUTSIDE_WINDOW:
    'Pix Automático: send the charge 2 to 10 days before its due date; cards: due_date is today. Within start_date and end_date.',
  DISPUTE_NOT_FOUND: 'Check the dispute id (dsp_...); disputes belong to the merchant and mode of the disputed payment.',
  DISPUTE_NOT_OPEN: 'Read the dispute’s status: evidence, submit and accept apply while it is needs_response.',
  DISPUTE_DEADLINE_PASSED: 'The provider no longer takes a defense after evidence_due_by; the case is decided without it.',
  DISPUTE_NOT_DEFENDABLE: 'This provider’s disputes are answered at the provider (its dashboard); the dispute here follows its outcome.',
  EVENT_NOT_FOUND: 'Check the event id (evt_...) in GET /api/v1/events.',
  PAYMENT_METHOD_NOT_FOUND: 'Use a method_code from GET /api/v1/methods.',
  RATE_LIMIT_EXCEEDED: 'Wait Retry-After seconds; X-RateLimit-* headers show the budget.',
  IDEMPOTENCY_IN_PROGRESS: 'The first request with this key is still running; retry after a short wait.',
  IDEMPOTENCY_KEY_REUSED: 'Use a new X-Idempotency-Key for a different request.',
  PROVIDER_UNAVAILABLE:
    'The payment named in the message is recorded and processing: await its webhook, or retry with the same X-Idempotency-Key.',
  PROVIDER_REJECTED: 'The provider refused the charge (the payment failed): check the customer data and create a new payment.',
  BUSY_RETRY_SAME_KEY:
    'Wait Retry-After seconds and send the same request with the same X-Idempotency-Key (the SDK does): nothing was ' +
    'written, and the retry creates the object once.',
  INTERNAL_ERROR: 'Retry with the same X-Idempotency-Key; if it persists, contact support with the request id.',
};

const hasInput = (c: RouteContract) => Boolean(c.request?.query ?? c.request?.path ?? c.request?.body);

/** Every code a route can answer, its own first. */
export function routeErrorCodes(route: RouteDefinition, contract: RouteContract): ErrorCode[] {
  const codes: ErrorCode[] = [...(contract.errors ?? [])];
  if (hasInput(contract)) codes.push('VALIDATION_ERROR');
  if (route.auth === 'api_key') codes.push('UNAUTHORIZED', 'FORBIDDEN', 'MERCHANT_INACTIVE');
  if (route.rateLimitPerMinute !== null) codes.push('RATE_LIMIT_EXCEEDED');
  if (route.idempotent) codes.push('IDEMPOTENCY_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED', 'BUSY_RETRY_SAME_KEY');
  codes.push('INTERNAL_ERROR');
  return [...new Set(codes)];
}

/** The codes by HTTP status. */
export function byStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const out = new Map<number, ErrorCode[]>();
  for (const code of codes) out.set(ERRORS[code].status, [...(out.get(ERRORS[code].status) ?? []), code]);
  return new Map([...out].sort(([a], [b]) => a - b));
}

const SHAPES: Record<ErrorFamily, string> = {
  checkout: '`{success:false, error:{code, message, details?, request_id}}`',
  direct: '`{detail, error_code, payment_id}` (error_code: the lowercase form)',
  process: '`{success:false, status:"failed", error_message, error_code, details?}`',
};

export interface ErrorReferenceRow {
  readonly code: ErrorCode;
  readonly status: number;
  readonly direct: string;
  readonly meaning: string;
  readonly action: string;
}

export const errorReference = (): ErrorReferenceRow[] =>
  (Object.keys(ERRORS) as ErrorCode[]).map((code) => ({
    code,
    status: ERRORS[code].status,
    direct: ERRORS[code].direct,
    meaning: ERRORS[code].message,
    action: ERROR_ACTIONS[code],
  }));

/** The reference as a Markdown table (README). */
export function errorReferenceMarkdown(): string {
  const head = [
    'Errors come in three shapes, by route: ' +
      Object.entries(SHAPES)
        .map(([family, shape]) => `${family} ${shape}`)
        .join('; ') +
      '. The `direct` column is the `error_code` of the direct-payment routes.',
    '',
    '| Code | HTTP | direct | Meaning | What to do |',
    '|---|---|---|---|---|',
  ];
  const rows = errorReference().map((r) => `| \`${r.code}\` | ${r.status} | \`${r.direct}\` | ${r.meaning} | ${r.action} |`);
  return [...head, ...rows].join('\n');
}

export const ERROR_SHAPES = SHAPES;
