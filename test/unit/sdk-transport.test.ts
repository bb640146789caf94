/**
 * The SDK's transport against a loopback server that injects faults: a create is retried on no answer,
 * timeouts, 429 (after Retry-After), 409 "still processing" and 5xx with the same X-Idempotency-Key,
 * a bounded number of times with jittered backoff; a caller's AbortSignal stops it at once; error
 * answers become the class of their family with the request id.
 */
import {
  APIError,
  AuthenticationError,
  CardError,
  ConnectionError,
  IdempotencyError,
  LatamPayments,
  NotFoundError,
  ProviderUnavailableError,
  RateLimitError,
  TimeoutError,
  ValidationError,
} from '../../sdk/src/index.ts';
import { backoffMs, retryAfterToMs } from '../../sdk/src/http.ts';
import { startFaultServer, type FaultServer } from '../support/fault-server';

jest.setTimeout(30_000);

let server: FaultServer;
beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(() => server.stop());

const client = (options: { timeout?: number; maxNetworkRetries?: number } = {}) =>
  new LatamPayments({ apiKey: 'sk_test_fault', baseUrl: server.baseUrl, ...options });
const payout = {
  method_code: 'svc-mt-5',
  amount: 10,
  currency: 'BRL' as const,
  beneficiary: { name: 'Ana Silva', document: '52998224725', document_type: 'CPF' as const },
};
const created = { status: 200, body: { success: true, payout_id: 'po_1', status: 'processing' } };
const serverError = { status: 500, body: { success: false, error: { code: 'INTERNAL_ERROR', message: 'An internal error occurred.' } } };
const keys = () => server.hits.map((h) => h.headers['x-idempotency-key']);
const rejection = async (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as Error & Record<string, any>,
  );

describe('retries', () => {
  it('a create is retried on 500 and 503 with the one X-Idempotency-Key it generated, then answers', async () => {
    server.script([serverError, { status: 503, body: {} }, created]);
    const result = await client().payouts.create(payout);
    expect(result).toEqual(created.body);
    expect(JSON.parse(JSON.stringify(result))).toEqual(created.body);
    expect(result.lastResponse).toMatchObject({ status: 200, requestId: 'req_3', idempotencyKey: keys()[0], replayed: false });
    expect(server.hits).toHaveLength(3);
    expect(keys()[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys())).toEqual(new Set([keys()[0]]));
    expect(server.hits.map((h) => JSON.parse(h.body))).toEqual([payout, payout, payout]);
    expect(server.hits[0]!.headers['x-api-key']).toBe('sk_test_fault');
  });

  it('503 BUSY_RETRY_SAME_KEY (contention, issue 34): waits its Retry-After, sends the same key and body, then answers', async () => {
    const busy = (family: 'checkout' | 'direct') => ({
      status: 503,
      headers: { 'retry-after': '1' },
      body:
        family === 'checkout'
          ? { success: false, error: { code: 'BUSY_RETRY_SAME_KEY', message: 'Send it again with the same X-Idempotency-Key.' } }
          : { detail: 'Send it again with the same X-Idempotency-Key.', error_code: 'busy_retry_same_key', payment_id: null },
    });
    server.script([busy('checkout'), busy('checkout'), created]);
    await expect(client().payouts.create(payout, { idempotencyKey: 'order-2002' })).resolves.toEqual(created.body);
    expect(keys()).toEqual(['order-2002', 'order-2002', 'order-2002']);
    expect(server.hits.map((h) => JSON.parse(h.body))).toEqual([payout, payout, payout]);
    expect(server.hits[1]!.at - server.hits[0]!.at).toBeGreaterThanOrEqual(950);
    // Past its retries, the error says what it is: status 503 and our code, so the caller can send it again later.
    server.script([], busy('checkout'));
    const e = await rejection(client({ maxNetworkRetries: 0 }).payouts.create(payout));
    expect({ status: e.status, code: e.code }).toEqual({ status: 503, code: 'BUSY_RETRY_SAME_KEY' });
  });

  it('a key given by the caller is the one sent, on every attempt; each call without one gets its own', async () => {
    server.script([serverError, created]);
    await client().payouts.create(payout, { idempotencyKey: 'order-1001' });
    expect(keys()).toEqual(['order-1001', 'order-1001']);
    server.script([created, created]);
    await client().payouts.create(payout);
    await client().payouts.create(payout);
    expect(keys()[0]).not.toBe(keys()[1]);
  });

  it('is bounded: 1 + maxNetworkRetries attempts (default 2), then the last error with its request id', async () => {
    server.script([], serverError);
    const e = await rejection(client().payouts.create(payout));
    expect(e).toBeInstanceOf(APIError);
    expect({ status: e.status, code: e.code, requestId: e.requestId }).toEqual({ status: 500, code: 'INTERNAL_ERROR', requestId: 'req_3' });
    expect(server.hits).toHaveLength(3);
    server.script([], serverError);
    await rejection(client({ maxNetworkRetries: 0 }).payouts.create(payout));
    expect(server.hits).toHaveLength(1);
    server.script([], serverError);
    await rejection(client().payouts.create(payout, { maxNetworkRetries: 4 }));
    expect(server.hits).toHaveLength(5);
  });

  it('waits out Retry-After on 429; a Retry-After beyond maxRetryAfter is thrown at once as RateLimitError', async () => {
    const limited = (seconds: string) => ({
      status: 429,
      headers: { 'retry-after': seconds },
      body: { success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests.' } },
    });
    server.script([limited('2'), created]);
    await expect(client().payouts.create(payout)).resolves.toEqual(created.body);
    expect(server.hits[1]!.at - server.hits[0]!.at).toBeGreaterThanOrEqual(1950);
    expect(keys()[1]).toBe(keys()[0]);

    server.script([limited('120')]);
    const e = await rejection(client().payouts.create(payout));
    expect(e).toBeInstanceOf(RateLimitError);
    expect({ retryAfter: e.retryAfter, requestId: e.requestId }).toEqual({ retryAfter: 120, requestId: 'req_1' });
    expect(server.hits).toHaveLength(1);
  });

  it('retries a dropped connection, and throws ConnectionError when every attempt is dropped', async () => {
    server.script(['drop', created]);
    await expect(client().payouts.create(payout)).resolves.toEqual(created.body);
    expect(keys()).toHaveLength(2);
    expect(keys()[1]).toBe(keys()[0]);
    server.script([], 'drop');
    const e = await rejection(client().payouts.retrieve('po_1'));
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e.message).toMatch(/\(attempt 3 of 3\)$/);
    expect(server.hits).toHaveLength(3);
  });

  it('times out each attempt after `timeout` ms, retries, and throws TimeoutError when none answers', async () => {
    server.script(['hang', created]);
    await expect(client({ timeout: 300 }).payouts.create(payout)).resolves.toEqual(created.body);
    expect(server.hits).toHaveLength(2);
    server.script([], 'hang');
    const started = Date.now();
    const e = await rejection(client({ timeout: 200, maxNetworkRetries: 1 }).payouts.retrieve('po_1'));
    expect(e).toBeInstanceOf(TimeoutError);
    expect(server.hits).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('retries 409 "still processing this key" with the same key, but not 422 "key reused with another body"', async () => {
    const inProgress = { status: 409, body: { success: false, error: { code: 'IDEMPOTENCY_IN_PROGRESS', message: 'still processing' } } };
    server.script([inProgress, created]);
    await expect(client().payouts.create(payout)).resolves.toEqual(created.body);
    expect(keys()[1]).toBe(keys()[0]);
    server.script([{ status: 422, body: { success: false, error: { code: 'IDEMPOTENCY_KEY_REUSED', message: 'other body' } } }]);
    expect(await rejection(client().payouts.create(payout))).toBeInstanceOf(IdempotencyError);
    expect(server.hits).toHaveLength(1);
  });

  it('does not retry a 4xx: one attempt, the error of its family', async () => {
    const details = [{ field: 'beneficiary.document', message: 'Invalid CPF' }];
    server.script([
      { status: 400, body: { success: false, error: { code: 'VALIDATION_ERROR', message: 'Invalid request parameters.', details } } },
    ]);
    const e = await rejection(client().payouts.create(payout));
    expect(e).toBeInstanceOf(ValidationError);
    expect(e.details).toEqual(details);
    expect(server.hits).toHaveLength(1);
  });

  it('a read is retried without an idempotency key; validate (no side effect) is retried too', async () => {
    server.script([serverError, { status: 200, body: { success: true, balances: [] } }]);
    await client().balance.retrieve();
    expect(server.hits.map((h) => [h.method, h.headers['x-idempotency-key']])).toEqual([
      ['GET', undefined],
      ['GET', undefined],
    ]);
    server.script([serverError, { status: 200, body: { success: true, valid: true } }]);
    await client().payouts.validate({ method_code: 'svc-mt-5', beneficiary: payout.beneficiary });
    expect(server.hits).toHaveLength(2);
  });

  it('backoff is exponential with jitter: between half and all of min(8 s, 0.5 s * 2^attempt)', () => {
    expect([0, 1, 2, 3, 4, 5].map((a) => [backoffMs(a, () => 0), backoffMs(a, () => 1)])).toEqual([
      [250, 500],
      [500, 1000],
      [1000, 2000],
      [2000, 4000],
      [4000, 8000],
      [4000, 8000],
    ]);
    const draws = new Set(Array.from({ length: 20 }, () => backoffMs(2)));
    expect(draws.size).toBeGreaterThan(1);
    expect(retryAfterToMs('3')).toBe(3000);
    expect(retryAfterToMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(retryAfterToMs(null)).toBeUndefined();
  });
});

describe('AbortSignal', () => {
  it('aborting a call in flight rejects it with the signal reason at once, with no retry', async () => {
    server.script([], 'hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const e = await rejection(client({ timeout: 10_000 }).payouts.retrieve('po_1', { signal: controller.signal }));
    expect(e.name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.hits).toHaveLength(1);
  });

  it('aborting during the wait between retries stops there', async () => {
    server.script([{ ...serverError, headers: { 'retry-after': '5' } }], created);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 200);
    const e = await rejection(client().payouts.create(payout, { signal: controller.signal }));
    expect(e.message).toBe('shutting down');
    await new Promise((r) => setTimeout(r, 300));
    expect(server.hits).toHaveLength(1);
  });
});

describe('errors by family', () => {
  const one = async (fault: { status: number; body: unknown }) => {
    server.script([fault]);
    return rejection(client({ maxNetworkRetries: 0 }).payments.create({} as never));
  };

  it('maps each body shape and code to its class, with status, code, request id', async () => {
    const e401 = await one({ status: 401, body: { detail: 'Invalid or missing API key.', error_code: 'unauthorized', payment_id: null } });
    expect(e401).toBeInstanceOf(AuthenticationError);
    expect({ code: e401.code, message: e401.message, requestId: e401.requestId }).toEqual({
      code: 'unauthorized',
      message: 'Invalid or missing API key.',
      requestId: 'req_1',
    });
    const card = await one({ status: 422, body: { detail: 'The card was declined.', error_code: 'card_declined', payment_id: 'pi_1' } });
    expect(card).toBeInstanceOf(CardError);
    expect(card.paymentId).toBe('pi_1');
    expect(
      await one({ status: 404, body: { success: false, error: { code: 'PAYOUT_NOT_FOUND', message: 'Payout not found.' } } }),
    ).toBeInstanceOf(NotFoundError);
    const provider = await one({
      status: 502,
      body: { detail: 'The payment provider did not answer', error_code: 'provider_unavailable', payment_id: 'pi_2' },
    });
    expect(provider).toBeInstanceOf(ProviderUnavailableError);
    const conflict = await one({
      status: 409,
      body: { success: false, error: { code: 'CANNOT_CANCEL', message: 'Payout already processing.' } },
    });
    expect(conflict.constructor).toBe(APIError);
    expect(conflict.code).toBe('CANNOT_CANCEL');
  });
});

describe('options', () => {
  it('test vs live from the key; a missing key or base URL is refused at construction', () => {
    expect(new LatamPayments({ apiKey: 'sk_test_a', baseUrl: 'http://x' })).toMatchObject({ mode: 'test', livemode: false });
    expect(new LatamPayments({ apiKey: 'sk_live_a', baseUrl: 'https://x' })).toMatchObject({ mode: 'live', livemode: true });
    expect(() => new LatamPayments({ apiKey: 'whsec_abc', baseUrl: 'http://x' })).toThrow(/apiKey/);
    expect(() => new LatamPayments({ apiKey: 'sk_test_a', baseUrl: '' })).toThrow(/baseUrl/);
  });
});
