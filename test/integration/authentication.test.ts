/** API key authentication as a merchant sees it, over HTTP (SPEC.md 5, DESIGN.md 4.2). */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';

let stack: TestStack;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack();
  merchant = await stack.createMerchant();
});
afterAll(() => stack.stop());

const methods = (headers: Record<string, string> = {}) => stack.request('/api/v1/methods?country=MEX', { headers });

describe('authentication', () => {
  it('accepts X-API-Key', async () => {
    const res = await methods({ 'X-API-Key': merchant.apiKey });
    expect(res.status).toBe(200);
  });

  it('accepts Authorization: Bearer', async () => {
    const res = await methods({ Authorization: `Bearer ${merchant.apiKey}` });
    expect(res.status).toBe(200);
  });

  it.each([
    ['no key', {}],
    ['an unknown key', { 'X-API-Key': 'sk_test_doesnotexist0000000000000000000000000' }],
    ['a key without our prefix', { 'X-API-Key': 'pk_test_abc' }],
    ['a malformed Authorization header', { Authorization: 'Basic Zm9vOmJhcg==' }],
    ['a Bearer with no token', { Authorization: 'Bearer' }],
  ])('answers 401 UNAUTHORIZED for %s', async (_what, headers) => {
    const res = await methods(headers as Record<string, string>);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: expect.objectContaining({ code: 'UNAUTHORIZED', message: expect.any(String) }) });
  });

  it('answers 401 once a key is revoked, while the merchant’s other keys keep working', async () => {
    const spare = await stack.admin.createKey(merchant.merchantId, 'test');
    expect((await methods({ 'X-API-Key': spare.secret })).status).toBe(200);
    await stack.admin.revokeKey(merchant.merchantId, spare.key.key_id);
    expect((await methods({ 'X-API-Key': spare.secret })).status).toBe(401);
    expect((await methods({ 'X-API-Key': merchant.apiKey })).status).toBe(200);
  });

  it('answers 403 MERCHANT_INACTIVE for an inactive merchant, and 200 again once reactivated', async () => {
    const m = await stack.createMerchant();
    await stack.admin.setStatus(m.merchantId, 'inactive');
    const res = await methods({ 'X-API-Key': m.apiKey });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('MERCHANT_INACTIVE');
    await stack.admin.setStatus(m.merchantId, 'active');
    expect((await methods({ 'X-API-Key': m.apiKey })).status).toBe(200);
  });

  it('answers 403 for a restricted key without the route’s scope', async () => {
    const restricted = await stack.admin.createKey(merchant.merchantId, 'test', ['payouts:read']);
    const res = await methods({ 'X-API-Key': restricted.secret });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('methods:read') });
    const allowed = await stack.admin.createKey(merchant.merchantId, 'test', ['methods:read']);
    expect((await methods({ 'X-API-Key': allowed.secret })).status).toBe(200);
  });

  it('answers 403 for a live key on the sandbox stage', async () => {
    const live = await stack.admin.createKey(merchant.merchantId, 'live');
    expect(live.secret.startsWith('sk_live_')).toBe(true);
    const res = await methods({ 'X-API-Key': live.secret });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });

  it('stores keys only as SHA-256 hashes and never stores the key itself', async () => {
    // A test-only look at every item: the service itself never scans.
    const all = await documentClient().send(new ScanCommand({ TableName: stack.tableName }));
    const dump = JSON.stringify(all.Items);
    expect(dump).not.toContain(merchant.apiKey);
    const { createHash } = await import('node:crypto');
    expect(dump).toContain(createHash('sha256').update(merchant.apiKey).digest('hex'));
    for (const item of all.Items ?? []) {
      expect(item).toEqual(
        expect.objectContaining({ PK: expect.any(String), SK: expect.any(String), entity: expect.any(String), version: 1 }),
      );
    }
  });
});
