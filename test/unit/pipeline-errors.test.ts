/** Error rendering in the three route families and the error-mapper middleware. No AWS. */
import type middy from '@middy/core';
import { AppError, ERRORS, isAppError, type ErrorCode } from '../../shared/domain/errors';
import { errorMapper } from '../../shared/http/middleware/error-mapper';
import { errorBody, errorResult, JSON_HEADERS, jsonResult, toAppError } from '../../shared/http/responses';
import type { ErrorFamily, RouteDefinition } from '../../shared/manifest/routes';
import { BUSY_RETRY_AFTER_SECONDS, busyError } from '../../shared/adapters/dynamodb/contention';
import type { HttpEvent, HttpResult, PipelineContext } from '../../shared/http/types';

type Request = middy.Request<HttpEvent, HttpResult, Error, PipelineContext>;
const FAMILIES: readonly ErrorFamily[] = ['checkout', 'direct', 'process'];
const REQ_ID = 'req-7f3a';

const route = (family: ErrorFamily): RouteDefinition => ({
  id: `test-${family}`,
  method: 'POST',
  path: '/test',
  handler: 'x.ts',
  auth: 'none',
  rateLimitPerMinute: null,
  family,
  idempotent: false,
  access: { table: 'none' },
  summary: 'test',
});

function failedRequest(family: ErrorFamily, error: unknown): Request {
  const context = { awsRequestId: 'aws-1', requestId: REQ_ID, route: route(family), responseHeaders: {} } as unknown as PipelineContext;
  return { event: {} as HttpEvent, context, response: undefined, error: error as Error, internal: {} };
}

function mapped(family: ErrorFamily, error: unknown) {
  const req = failedRequest(family, error);
  errorMapper().onError!(req);
  const res = req.response as HttpResult;
  return { res, body: JSON.parse(res.body as string) as Record<string, unknown> };
}

const details = [
  { field: 'amount', message: 'must be positive' },
  { field: 'customer.email', message: 'invalid email' },
];
const validationError = () => new AppError('VALIDATION_ERROR', 'Invalid request parameters: amount, customer.email.', { details });

describe('errorBody shapes', () => {
  it('checkout: success false, code, message, details and request id', () => {
    expect(errorBody('checkout', validationError(), REQ_ID)).toStrictEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: 'Invalid request parameters: amount, customer.email.', details, request_id: REQ_ID },
    });
  });

  it('checkout: no details key when there are none (or an empty list)', () => {
    const expected = { success: false, error: { code: 'NOT_FOUND', message: ERRORS.NOT_FOUND.message, request_id: REQ_ID } };
    expect(errorBody('checkout', new AppError('NOT_FOUND'), REQ_ID)).toStrictEqual(expected);
    expect(errorBody('checkout', new AppError('NOT_FOUND', undefined, { details: [] }), REQ_ID)).toStrictEqual(expected);
  });

  it('direct: detail with every field, the direct error code, payment_id null', () => {
    expect(errorBody('direct', validationError(), REQ_ID)).toStrictEqual({
      detail: 'Invalid request parameters: amount, customer.email. amount: must be positive; customer.email: invalid email',
      error_code: 'invalid_request',
      payment_id: null,
    });
    expect(errorBody('direct', new AppError('IDEMPOTENCY_KEY_REUSED'), REQ_ID)).toStrictEqual({
      detail: ERRORS.IDEMPOTENCY_KEY_REUSED.message,
      error_code: 'idempotency_conflict',
      payment_id: null,
    });
  });

  it('process: success false, status failed, error_message, plus the code and fields the hosted page localises by', () => {
    expect(errorBody('process', validationError(), REQ_ID)).toStrictEqual({
      success: false,
      status: 'failed',
      error_message: 'Invalid request parameters: amount, customer.email.',
      error_code: 'VALIDATION_ERROR',
      details: validationError().details,
    });
  });
});

describe('errorResult', () => {
  it.each(FAMILIES)('%s: status, JSON content type and the AppError headers', (family) => {
    const err = new AppError('RATE_LIMIT_EXCEEDED', undefined, { headers: { 'retry-after': '12', 'x-ratelimit-remaining': '0' } });
    const res = errorResult(family, err, REQ_ID);
    expect(res.statusCode).toBe(429);
    expect(res.headers).toEqual({ ...JSON_HEADERS, 'retry-after': '12', 'x-ratelimit-remaining': '0' });
    expect(JSON.parse(res.body as string)).toEqual(errorBody(family, err, REQ_ID));
  });

  it('does not share or mutate the AppError headers object', () => {
    const headers = { 'retry-after': '3' };
    const res = errorResult('checkout', new AppError('RATE_LIMIT_EXCEEDED', undefined, { headers }), REQ_ID);
    (res.headers as Record<string, string>)['x-extra'] = '1';
    expect(headers).toEqual({ 'retry-after': '3' });
  });

  it('jsonResult lets explicit headers override the content type', () => {
    expect(jsonResult(201, { a: 1 }, { 'content-type': 'application/vnd.api+json' })).toEqual({
      statusCode: 201,
      headers: { 'content-type': 'application/vnd.api+json' },
      body: '{"a":1}',
    });
  });
});

describe('ERRORS statuses', () => {
  const expected: Record<ErrorCode, number> = {
    UNAUTHORIZED: 401,
    FORBIDDEN: 403,
    MERCHANT_INACTIVE: 403,
    MERCHANT_NOT_FOUND: 404,
    VALIDATION_ERROR: 400,
    NOT_FOUND: 404,
    METHOD_NOT_ALLOWED: 405,
    PAYMENT_METHOD_NOT_FOUND: 404,
    RATE_LIMIT_EXCEEDED: 429,
    IDEMPOTENCY_IN_PROGRESS: 409,
    IDEMPOTENCY_KEY_REUSED: 422,
    COUNTRY_NOT_SUPPORTED: 400,
    METHOD_NOT_AVAILABLE: 400,
    PROVIDER_UNAVAILABLE: 502,
    PROVIDER_REJECTED: 422,
    AMOUNT_LIMIT_EXCEEDED: 400,
    SESSION_NOT_FOUND: 404,
    SESSION_EXPIRED: 410,
    SESSION_NOT_PENDING: 409,
    PAYMENT_NOT_FOUND: 404,
    PAYMENT_STATE_CONFLICT: 409,
    CARD_DECLINED: 422,
    INSUFFICIENT_FUNDS: 422,
    EXPIRED_CARD: 422,
    INCORRECT_CVC: 422,
    AUTHENTICATION_FAILED: 422,
    EVENT_NOT_FOUND: 404,
    INVALID_BENEFICIARY: 400,
    INSUFFICIENT_BALANCE: 400,
    PAYOUT_NOT_FOUND: 404,
    CANNOT_CANCEL: 409,
    PAYOUT_STATE_CONFLICT: 409,
    REFUND_NOT_FOUND: 404,
    PAYMENT_NOT_REFUNDABLE: 409,
    REFUND_AMOUNT_EXCEEDED: 422,
    REFUND_WINDOW_EXPIRED: 422,
    MANDATE_NOT_FOUND: 404,
    MANDATE_NOT_ACTIVE: 409,
    MANDATE_STATE_CONFLICT: 409,
    MANDATE_CYCLE_ALREADY_CHARGED: 409,
    MANDATE_AMOUNT_EXCEEDED: 400,
    DUE_DATE_OUTSIDE_WINDOW: 400,
    DISPUTE_NOT_FOUND: 404,
    DISPUTE_NOT_OPEN: 400,
    DISPUTE_DEADLINE_PASSED: 409,
    DISPUTE_NOT_DEFENDABLE: 409,
    BUSY_RETRY_SAME_KEY: 503,
    INTERNAL_ERROR: 500,
  };

  it('lists exactly the known codes', () => {
    expect(Object.keys(ERRORS).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected) as [ErrorCode, number][])('%s is %i in every family', (code, status) => {
    const err = new AppError(code);
    expect(err.status).toBe(status);
    expect(err.message).toBe(ERRORS[code].message);
    for (const family of FAMILIES) expect(errorResult(family, err, REQ_ID).statusCode).toBe(status);
  });
});

describe('toAppError', () => {
  it('passes AppErrors through and turns anything else into INTERNAL_ERROR', () => {
    const app = new AppError('FORBIDDEN');
    expect(toAppError(app)).toBe(app);
    for (const thrown of [new Error('boom'), new TypeError('x is undefined'), 'a string', undefined, { code: 'FORBIDDEN' }]) {
      const e = toAppError(thrown);
      expect(isAppError(e)).toBe(true);
      expect(e.code).toBe('INTERNAL_ERROR');
      expect(e.status).toBe(500);
    }
  });
});

describe('contention (issue 34): 503 BUSY_RETRY_SAME_KEY with Retry-After, never a 500', () => {
  const cancelled = (...codes: string[]) =>
    Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: codes.map((Code) => ({ Code })),
    });
  const named = (name: string) => Object.assign(new Error(name), { name });

  it.each([
    ['a write past its deadline', busyError()],
    ['a transaction cancelled for a conflict', cancelled('None', 'TransactionConflict')],
    ['a transaction cancelled for a throttle', cancelled('ThrottlingError', 'None')],
    ['a single write that met a transaction', named('TransactionConflictException')],
    ['a throttle the SDK retries did not outlast', named('ProvisionedThroughputExceededException')],
  ])('%s', (_what, thrown) => {
    for (const family of FAMILIES) {
      const { res, body } = mapped(family, thrown);
      expect(res.statusCode).toBe(503);
      expect(res.headers).toMatchObject({ 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) });
      // The message is ours and says what to do; the code says it too, in each family's shape.
      expect(JSON.stringify(body)).toContain('same X-Idempotency-Key');
      if (family === 'checkout') expect(body).toMatchObject({ success: false, error: { code: 'BUSY_RETRY_SAME_KEY' } });
      if (family === 'direct') expect(body).toMatchObject({ error_code: 'busy_retry_same_key', payment_id: null });
      if (family === 'process') expect(body).toMatchObject({ status: 'failed', error_code: 'BUSY_RETRY_SAME_KEY' });
    }
  });

  it('a transaction cancelled for a failed condition is not contention: still a 500 if it reaches the handler', () => {
    expect(mapped('checkout', cancelled('ConditionalCheckFailed', 'TransactionConflict')).res.statusCode).toBe(500);
    expect(mapped('checkout', cancelled('ValidationError')).res.statusCode).toBe(500);
  });
});

describe('errorMapper middleware', () => {
  const secret = 'connect ECONNREFUSED db-password=hunter2';

  it.each(FAMILIES)('%s: a plain Error becomes a 500 naming the request id, not the original message', (family) => {
    const { res, body } = mapped(family, new Error(secret));
    expect(res.statusCode).toBe(500);
    expect(res.body).toContain(REQ_ID);
    expect(res.body).not.toContain('hunter2');
    expect(res.body).not.toContain('ECONNREFUSED');
    const message = `${ERRORS.INTERNAL_ERROR.message} Request id: ${REQ_ID}.`;
    if (family === 'checkout') expect(body).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message, request_id: REQ_ID } });
    if (family === 'direct') expect(body).toEqual({ detail: message, error_code: 'internal_error', payment_id: null });
    if (family === 'process')
      expect(body).toEqual({ success: false, status: 'failed', error_message: message, error_code: 'INTERNAL_ERROR' });
  });

  it('hides the message of a 5xx AppError too', () => {
    const { res } = mapped('checkout', new AppError('INTERNAL_ERROR', `table scan failed: ${secret}`));
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('hunter2');
    expect(res.body).toContain(REQ_ID);
  });

  it.each(FAMILIES)('%s: a 4xx AppError keeps its message and headers', (family) => {
    const err = new AppError('UNAUTHORIZED', 'Malformed Authorization header.', { headers: { 'www-authenticate': 'Bearer' } });
    const { res, body } = mapped(family, err);
    expect(res.statusCode).toBe(401);
    expect(res.headers).toMatchObject({ 'www-authenticate': 'Bearer', 'content-type': JSON_HEADERS['content-type'] });
    expect(JSON.stringify(body)).toContain('Malformed Authorization header.');
    expect(body).toEqual(errorBody(family, err, REQ_ID));
  });

  it('renders a validation error with its details in the route family', () => {
    const { res, body } = mapped('checkout', validationError());
    expect(res.statusCode).toBe(400);
    expect(body).toEqual({ success: false, error: expect.objectContaining({ code: 'VALIDATION_ERROR', details }) });
  });
});

describe('5xx details', () => {
  it('never carries field details on a 5xx, whatever the family', async () => {
    const { AppError } = await import('../../shared/domain/errors');
    const { errorBody } = await import('../../shared/http/responses');
    const err = new AppError('INTERNAL_ERROR', 'db password wrong', { details: [{ field: 'dsn', message: 'postgres://u:p@h' }] });
    for (const family of ['checkout', 'direct', 'process'] as const) {
      const text = JSON.stringify(errorBody(family, err, 'req-1'));
      expect(text).not.toContain('postgres://');
      expect(text).not.toContain('db password');
      expect(text).toContain('req-1');
    }
  });
});
