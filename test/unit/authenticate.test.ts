/** Authentication rules with in-memory repositories: no AWS, no module spying. */
import { createHash } from 'node:crypto';
import { extractApiKey, makeAuthenticator } from '../../shared/application/access';
import { AppError } from '../../shared/domain/errors';
import type { ApiKey, Merchant } from '../../shared/domain/merchant';
import type { Mode } from '../../shared/domain/access';

const hash = (k: string) => createHash('sha256').update(k).digest('hex');
const RAW = 'sk_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const merchant: Merchant = {
  merchant_id: 'mch_AAAAAAAAAAAAAAAAAAAAAA',
  name: 'M',
  status: 'active',
  countries: ['BRA'],
  methods: ['svc-mt-1'],
  notification_url: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};
const key: ApiKey = {
  key_id: 'key_1',
  merchant_id: merchant.merchant_id,
  mode: 'test',
  scopes: ['*'],
  status: 'active',
  hint: 'sk_test_…aaaa',
  created_at: '2026-01-01T00:00:00.000Z',
  revoked_at: null,
};

function setup(opts: { key?: ApiKey | null; merchant?: Merchant | null; ttl?: number; modes?: Mode[] } = {}) {
  let now = 0;
  const calls = { keys: 0, merchants: 0 };
  const keys = new Map<string, ApiKey>();
  if (opts.key !== null) keys.set(hash(RAW), opts.key ?? key);
  const auth = makeAuthenticator({
    apiKeys: { findByHash: async (h) => (calls.keys++, keys.get(h) ?? null) },
    merchants: { get: async () => (calls.merchants++, opts.merchant === undefined ? merchant : opts.merchant) },
    secrets: { hashKey: hash },
    clock: { now: () => new Date(now) },
    cacheTtlMs: () => opts.ttl ?? 0,
    allowedModes: () => opts.modes ?? ['test'],
  });
  return { auth, calls, keys, advance: (ms: number) => (now += ms) };
}

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: AppError) => e.code,
  );

describe('extractApiKey', () => {
  it('reads X-API-Key first, then Authorization: Bearer', () => {
    expect(extractApiKey({ 'x-api-key': ' sk_test_a ' })).toBe('sk_test_a');
    expect(extractApiKey({ authorization: 'Bearer sk_test_b' })).toBe('sk_test_b');
    expect(extractApiKey({ authorization: 'bearer   sk_test_c' })).toBe('sk_test_c');
    expect(extractApiKey({})).toBeNull();
  });
  it('rejects a malformed Authorization header as UNAUTHORIZED', () => {
    expect(() => extractApiKey({ authorization: 'Basic abc' })).toThrow(AppError);
    expect(() => extractApiKey({ authorization: 'Bearer a b' })).toThrow(/Malformed/);
  });
});

describe('authenticate', () => {
  it('resolves a valid key to its merchant and mode', async () => {
    const p = await setup().auth.authenticate(RAW, 'methods:read');
    expect(p).toMatchObject({ mode: 'test', livemode: false, merchant: { merchant_id: merchant.merchant_id } });
  });

  it.each([
    ['missing key', null],
    ['unknown prefix', 'pk_test_x'],
    ['unknown key', 'sk_test_zzzz'],
  ])('rejects %s with UNAUTHORIZED', async (_w, raw) => {
    expect(await code(setup().auth.authenticate(raw, undefined))).toBe('UNAUTHORIZED');
  });

  it('rejects a revoked key, a key whose prefix lies about its mode, and an orphan key', async () => {
    expect(await code(setup({ key: { ...key, status: 'revoked' } }).auth.authenticate(RAW, undefined))).toBe('UNAUTHORIZED');
    expect(await code(setup({ key: { ...key, mode: 'live' } }).auth.authenticate(RAW, undefined))).toBe('UNAUTHORIZED');
    expect(await code(setup({ merchant: null }).auth.authenticate(RAW, undefined))).toBe('UNAUTHORIZED');
  });

  it('rejects an inactive merchant with MERCHANT_INACTIVE', async () => {
    expect(await code(setup({ merchant: { ...merchant, status: 'inactive' } }).auth.authenticate(RAW, undefined))).toBe(
      'MERCHANT_INACTIVE',
    );
  });

  it('rejects a missing scope and a mode the stage does not serve with FORBIDDEN', async () => {
    expect(await code(setup({ key: { ...key, scopes: ['payouts:read'] } }).auth.authenticate(RAW, 'methods:read'))).toBe('FORBIDDEN');
    expect(await code(setup({ modes: ['live'] }).auth.authenticate(RAW, undefined))).toBe('FORBIDDEN');
  });

  it('caches lookups for the configured time only', async () => {
    const s = setup({ ttl: 1000 });
    await s.auth.authenticate(RAW, undefined);
    await s.auth.authenticate(RAW, undefined);
    expect(s.calls.keys).toBe(1);
    s.advance(1001);
    await s.auth.authenticate(RAW, undefined);
    expect(s.calls.keys).toBe(2);
  });

  it('does not cache when the TTL is 0, so a revocation applies at once', async () => {
    const s = setup({ ttl: 0 });
    await s.auth.authenticate(RAW, undefined);
    s.keys.set(hash(RAW), { ...key, status: 'revoked' });
    expect(await code(s.auth.authenticate(RAW, undefined))).toBe('UNAUTHORIZED');
  });
});
