/**
 * The request pipeline every handler shares, over real HTTP on DynamoDB Local:
 * idempotency, rate limits, validation, error shapes and log redaction.
 * The routes used here exist only in test code (test/support/routes).
 */
import '../support/log-level-info';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
import { deriveId } from '../../shared/http/middleware/idempotency';
import { pipelineTestRoutes } from '../support/routes/pipeline-test-routes';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';

let stack: TestStack;
let merchant: TestMerchant;

// Everything the service logs during this file (Powertools writes JSON lines to stdout, errors to stderr).
let captured: string[] = [];
let spies: jest.SpyInstance[] = [];
beforeAll(() => {
  spies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      captured.push(String(chunk));
      return true;
    }),
  );
});
afterAll(() => spies.forEach((s) => s.mockRestore()));

beforeAll(async () => {
  stack = await startTestStack({ extraRoutes: pipelineTestRoutes });
  merchant = await stack.createMerchant();
});
afterAll(() => stack.stop());

const post = (path: string, body: unknown, headers: Record<string, string> = {}, apiKey = merchant.apiKey) =>
  stack.request(path, {
    method: 'POST',
    apiKey,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function effects(m: TestMerchant = merchant): Promise<number> {
  const r = await documentClient().send(
    new GetCommand({ TableName: config.tableName, Key: { PK: `TESTCOUNTER#${m.merchantId}`, SK: 'COUNTER' }, ConsistentRead: true }),
  );
  return Number(r.Item?.n ?? 0);
}

let keySeq = 0;
const newKey = () => `key-${Date.now()}-${keySeq++}`;

describe('idempotency (X-Idempotency-Key)', () => {
  it('20 concurrent identical requests produce exactly one effect', async () => {
    const before = await effects();
    const key = newKey();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => post('/test/widgets', { name: 'w', amount: 10 }, { 'x-idempotency-key': key })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((x) => x.status === 409)) {
      expect(r.body.error.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    }
    expect(new Set(results.filter((r) => r.status === 200).map((r) => r.body.widget_id)).size).toBe(1);
    expect(await effects()).toBe(before + 1);
  });

  it('replays the first response byte for byte, marked Idempotent-Replayed', async () => {
    const key = newKey();
    const first = await post('/test/widgets', { name: 'a', amount: 5 }, { 'x-idempotency-key': key });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const before = await effects();
    const replay = await post('/test/widgets', { name: 'a', amount: 5 }, { 'x-idempotency-key': key });
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await effects()).toBe(before);
  });

  it('treats key order, ignored fields and a client merchant_id as the same request', async () => {
    const key = newKey();
    const first = await post('/test/widgets', { name: 'b', amount: 7 }, { 'x-idempotency-key': key });
    const same = await post(
      '/test/widgets',
      { amount: 7, merchant_id: 'mch_someoneelse', extra: 1, name: 'b' },
      { 'x-idempotency-key': key },
    );
    expect(same.text).toBe(first.text);
    const stored = await documentClient().send(
      new GetCommand({ TableName: config.tableName, Key: { PK: `TESTWIDGET#${first.body.widget_id}`, SK: 'WIDGET' } }),
    );
    expect(stored.Item).toBeDefined();
    expect(stored.Item).not.toHaveProperty('merchant_id');
    expect(stored.Item).not.toHaveProperty('extra');
  });

  it('answers 422 when the same key comes with a different body, and changes nothing', async () => {
    const key = newKey();
    await post('/test/widgets', { name: 'c', amount: 1 }, { 'x-idempotency-key': key });
    const before = await effects();
    const other = await post('/test/widgets', { name: 'c', amount: 2 }, { 'x-idempotency-key': key });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await effects()).toBe(before);
  });

  it('does not store validation failures: the same key works once the body is fixed', async () => {
    const key = newKey();
    const bad = await post('/test/widgets', { name: '', amount: -1 }, { 'x-idempotency-key': key });
    expect(bad.status).toBe(400);
    const good = await post('/test/widgets', { name: 'd', amount: 1 }, { 'x-idempotency-key': key });
    expect(good.status).toBe(200);
  });

  it('scopes keys by merchant', async () => {
    const other = await stack.createMerchant();
    const key = newKey();
    const a = await post('/test/widgets', { name: 'e', amount: 1 }, { 'x-idempotency-key': key });
    const b = await post('/test/widgets', { name: 'e', amount: 1 }, { 'x-idempotency-key': key }, other.apiKey);
    expect(b.status).toBe(200);
    expect(b.body.widget_id).not.toBe(a.body.widget_id);
    expect(await effects(other)).toBe(1);
  });

  it('derives the created id from merchant, mode, route and key', async () => {
    const key = newKey();
    const r = await post('/test/widgets', { name: 'f', amount: 1 }, { 'x-idempotency-key': key });
    expect(r.body.widget_id).toBe(deriveId('wgt_', { merchantId: merchant.merchantId, mode: 'test', routeId: 'testCreateWidget', key }));
  });

  it('creates again without a key', async () => {
    const before = await effects();
    const a = await post('/test/widgets', { name: 'g', amount: 1 });
    const b = await post('/test/widgets', { name: 'g', amount: 1 });
    expect(a.body.widget_id).not.toBe(b.body.widget_id);
    expect(await effects()).toBe(before + 2);
  });

  it('rejects keys over 255 characters with 400 and accepts 255', async () => {
    const long = await post('/test/widgets', { name: 'h', amount: 1 }, { 'x-idempotency-key': 'k'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.error.details).toEqual([expect.objectContaining({ field: 'x-idempotency-key' })]);
    const max = await post('/test/widgets', { name: 'h', amount: 1 }, { 'x-idempotency-key': `${newKey()}`.padEnd(255, 'x') });
    expect(max.status).toBe(200);
  });

  it('stores records under their own partition with a 24 h TTL', async () => {
    const key = newKey();
    await post('/test/widgets', { name: 'i', amount: 1 }, { 'x-idempotency-key': key });
    const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
    const all = await documentClient().send(
      new ScanCommand({ TableName: config.tableName, FilterExpression: 'SK = :sk', ExpressionAttributeValues: { ':sk': 'IDEMPOTENCY' } }),
    );
    expect(all.Items!.length).toBeGreaterThan(0);
    for (const item of all.Items!) {
      expect(item.PK).toMatch(/^IDEMPOTENCY#/);
      const hours = (item.ttl - Date.now() / 1000) / 3600;
      expect(hours).toBeGreaterThan(23);
      expect(hours).toBeLessThanOrEqual(24.01);
    }
  });
});

describe('rate limit', () => {
  async function freshWindow() {
    // Stay clear of a minute boundary so all requests fall in one window.
    const s = new Date().getSeconds();
    if (s > 45) await new Promise((r) => setTimeout(r, (61 - s) * 1000));
  }

  it('allows exactly 100 of 130 concurrent requests in a minute, then answers 429 with Retry-After', async () => {
    const m = await stack.createMerchant();
    await freshWindow();
    const results = await Promise.all(Array.from({ length: 130 }, () => stack.request('/test/limited', { apiKey: m.apiKey })));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(100);
    expect(limited).toHaveLength(30);
    expect(new Set(ok.map((r) => r.headers.get('x-ratelimit-remaining')))).toEqual(
      new Set(Array.from({ length: 100 }, (_, i) => String(i))),
    );
    const r = limited[0]!;
    expect(r.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(r.headers.get('x-ratelimit-limit')).toBe('100');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('lets the 100th request through and refuses the 101st, per merchant and per route', async () => {
    const m = await stack.createMerchant();
    await freshWindow();
    for (let i = 1; i <= 99; i++) await stack.request('/test/limited', { apiKey: m.apiKey });
    const hundredth = await stack.request('/test/limited', { apiKey: m.apiKey });
    expect(hundredth.status).toBe(200);
    expect(hundredth.headers.get('x-ratelimit-remaining')).toBe('0');
    const next = await stack.request('/test/limited', { apiKey: m.apiKey });
    expect(next.status).toBe(429);
    // Another route and another merchant have their own windows.
    expect((await stack.request('/api/v1/methods', { apiKey: m.apiKey })).status).toBe(200);
    expect((await stack.request('/test/limited', { apiKey: merchant.apiKey })).status).toBe(200);
  }, 60_000);

  it('puts X-RateLimit headers on every response of a limited route, errors included', async () => {
    const r = await stack.request('/api/v1/methods?country=XXX', { apiKey: merchant.apiKey });
    expect(r.status).toBe(400);
    expect(r.headers.get('x-ratelimit-limit')).toBe('300');
    expect(r.headers.get('x-ratelimit-remaining')).not.toBeNull();
  });
});

describe('validation', () => {
  it('names every bad field', async () => {
    const r = await post('/test/widgets', { name: 'x'.repeat(51), amount: 'ten', kind: 'medium' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
    expect(r.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['amount', 'kind', 'name']);
  });

  it.each([
    ['malformed JSON', '{"name": "x",', 'application/json', 'body'],
    ['a non-JSON content type', 'name=x', 'application/x-www-form-urlencoded', 'content-type'],
    ['a body over 64 KB', JSON.stringify({ name: 'x', amount: 1, pad: 'p'.repeat(70_000) }), 'application/json', 'body'],
    ['a missing body', '', 'application/json', 'body'],
  ])('rejects %s with 400 before any write', async (_what, body, contentType, field) => {
    const before = await effects();
    const r = await stack.request('/test/widgets', {
      method: 'POST',
      apiKey: merchant.apiKey,
      headers: { 'content-type': contentType },
      body,
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([expect.objectContaining({ field })]);
    expect(await effects()).toBe(before);
  });
});

describe('errors and logs', () => {
  beforeEach(() => {
    captured = [];
  });

  it('answers an unexpected failure with a generic 500 naming the request id, and logs the stack', async () => {
    const r = await stack.request('/test/boom', { apiKey: merchant.apiKey });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({
      detail: expect.stringContaining(r.headers.get('x-request-id')!),
      error_code: 'internal_error',
      payment_id: null,
    });
    expect(r.text).not.toContain('hunter2');
    const log = captured.join('');
    expect(log).toContain('"level":"ERROR"');
    expect(log).toContain('pipeline-test-routes.ts');
    expect(log).toContain(r.headers.get('x-request-id')!);
  });

  it('never logs a card number, CVV, document or API key, even when a handler logs the whole request', async () => {
    const r = await post('/test/log-card', { card: { number: '4242424242424242', cvv: '987' }, customer: { document: '52998224725' } });
    expect(r.status).toBe(200);
    const log = captured.join('');
    expect(log).toContain('received payment request');
    expect(log).toContain('************4242');
    expect(log).not.toContain('4242424242424242');
    expect(log).not.toMatch(/"cvv":"987"|cvv 987|\\"cvv\\":\\"987\\"/);
    expect(log).not.toContain('52998224725');
    expect(log).not.toContain(merchant.apiKey);
  });
});
