/** Idempotency helpers and our runner (claim, answer with the effect, release) over in-memory records. No AWS. */
import type { Context } from 'aws-lambda';
import { WriteConflict } from '../../shared/application/ports';
import { MemoryIdempotencyRecords } from '../support/in-memory';
import {
  canonicalJson,
  checkIdempotencyKey,
  deriveId,
  IDEMPOTENCY_TTL_SECONDS,
  makeIdempotentRunner,
  REPLAYED_HEADER,
  type IdempotencyScope,
} from '../../shared/http/middleware/idempotency';
import { AppError } from '../../shared/domain/errors';

interface Result {
  statusCode: number;
  body: string;
  headers?: Record<string, string>;
}

const lambdaContext = (remainingMs = 30_000) =>
  ({ awsRequestId: 'aws-1', getRemainingTimeInMillis: () => remainingMs }) as unknown as Context;
const scope: IdempotencyScope = { merchantId: 'mch_1', mode: 'test', routeId: 'createPayment', key: 'order-42' };
const input = { query: {}, path: {}, body: { amount: 100, currency: 'BRL' } };

function setup() {
  const store = new MemoryIdempotencyRecords();
  let clock = Date.now();
  const run = makeIdempotentRunner<Result>(
    () => store,
    () => clock,
  );
  let calls = 0;
  const work =
    (statusCode = 201) =>
    async (): Promise<Result> => ({
      statusCode,
      body: JSON.stringify({ id: `pi_${++calls}` }),
      headers: { 'content-type': 'application/json' },
    });
  const advance = (ms: number) => void (clock += ms);
  return { store, run, work, calls: () => calls, advance };
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof AppError ? e.code : `not an AppError: ${String(e)}`),
  );

describe('checkIdempotencyKey', () => {
  it('accepts 1 to 255 printable ASCII characters', () => {
    expect(checkIdempotencyKey('a')).toBe('a');
    expect(checkIdempotencyKey('k'.repeat(255))).toHaveLength(255);
    expect(checkIdempotencyKey('order-42_{"x"}~!')).toBe('order-42_{"x"}~!');
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'order 42'],
    ['a tab', 'order\t42'],
    ['non-ASCII', 'pedido-ñ'],
    ['an emoji', 'key-🔑'],
    ['a control character', 'a\u0000b'],
  ])('rejects %s with VALIDATION_ERROR on x-idempotency-key', (_w, key) => {
    let err: unknown;
    try {
      checkIdempotencyKey(key);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('VALIDATION_ERROR');
    expect((err as AppError).details).toEqual([expect.objectContaining({ field: 'x-idempotency-key' })]);
  });
});

describe('deriveId', () => {
  it('is deterministic: prefix + 22 base64url characters (128 bits)', () => {
    const id = deriveId('pi_', scope);
    expect(id).toBe(deriveId('pi_', { ...scope }));
    expect(id).toMatch(/^pi_[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(id.slice(3), 'base64url')).toHaveLength(16);
  });

  it.each(['merchantId', 'mode', 'routeId', 'key'] as const)('differs when %s differs', (field) => {
    expect(deriveId('pi_', { ...scope, [field]: `${scope[field]}x` })).not.toBe(deriveId('pi_', scope));
  });

  it('does not let fields run into each other', () => {
    expect(deriveId('pi_', { ...scope, merchantId: 'ab', mode: 'c' })).not.toBe(deriveId('pi_', { ...scope, merchantId: 'a', mode: 'bc' }));
  });
});

describe('canonicalJson', () => {
  it('is independent of key order, at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 2], c: 'x' } })).toBe(canonicalJson({ a: { c: 'x', d: [1, 2] }, b: 1 }));
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });

  it('drops undefined properties but keeps null', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ a: null })).toBe('{"a":null}');
  });

  it('keeps array order and agrees with JSON.stringify on plain data', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    const v = { a: [{ x: 1 }, 'é', true, null, 1.5], b: { c: '' } };
    expect(JSON.parse(canonicalJson(v))).toEqual(v);
  });

  // Dates (e.g. from a z.coerce.date() schema) must hash by value, or two requests
  // differing only in a date would replay instead of answering 422.
  it('renders objects with toJSON (Dates) like JSON.stringify, so different dates differ', () => {
    expect(canonicalJson({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
    expect(canonicalJson({ at: new Date(0) })).not.toBe(canonicalJson({ at: new Date(1) }));
  });
});

describe('makeIdempotentRunner (in-memory records)', () => {
  it('runs the work once and replays the stored result with idempotent-replayed', async () => {
    const { run, work, calls, store } = setup();
    const first = await run(scope, input, lambdaContext(), work());
    expect(first).toEqual({ statusCode: 201, body: '{"id":"pi_1"}', headers: { 'content-type': 'application/json' } });
    expect(calls()).toBe(1);

    const reordered = { body: { currency: 'BRL', amount: 100 }, path: {}, query: {} };
    const second = await run(scope, reordered, lambdaContext(), work(500));
    expect(calls()).toBe(1);
    expect(second).toEqual({ ...first, headers: { ...first.headers, [REPLAYED_HEADER]: 'true' } });
    expect(REPLAYED_HEADER).toBe('idempotent-replayed');

    const [record] = [...store.items.values()];
    expect(store.items.size).toBe(1);
    expect(record?.status).toBe('COMPLETED');
    expect(record?.ttl).toBeCloseTo(Date.now() / 1000 + IDEMPOTENCY_TTL_SECONDS, -1);
  });

  it('refuses the same key with a different input: IDEMPOTENCY_KEY_REUSED (422)', async () => {
    const { run, work, calls } = setup();
    await run(scope, input, lambdaContext(), work());
    const other = { ...input, body: { amount: 101, currency: 'BRL' } };
    expect(await codeOf(run(scope, other, lambdaContext(), work()))).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(calls()).toBe(1);
  });

  it('keeps scopes apart: another merchant, mode, route or key runs the work', async () => {
    const { run, work, calls } = setup();
    await run(scope, input, lambdaContext(), work());
    for (const s of [{ merchantId: 'mch_2' }, { mode: 'live' }, { routeId: 'createPayout' }, { key: 'order-43' }]) {
      const res = await run({ ...scope, ...s }, input, lambdaContext(), work());
      expect(res.headers?.[REPLAYED_HEADER]).toBeUndefined();
    }
    expect(calls()).toBe(5);
  });

  it('answers IDEMPOTENCY_IN_PROGRESS (409) while the first call is still running', async () => {
    const { run, work, calls } = setup();
    let release!: () => void;
    let started!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const running = new Promise<void>((r) => (started = r));
    const first = run(scope, input, lambdaContext(), async () => {
      started();
      await gate;
      return work()();
    });
    await running;
    expect(await codeOf(run(scope, input, lambdaContext(), work()))).toBe('IDEMPOTENCY_IN_PROGRESS');
    release();
    expect((await first).statusCode).toBe(201);
    expect(calls()).toBe(1);
  });

  it('lets the same request take over once a crashed claim expired; another body is still 422', async () => {
    const { run, work, calls, advance } = setup();
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    void run(scope, input, lambdaContext(1000), async () => {
      started();
      return new Promise<Result>(() => undefined); // a crashed invocation never finishes
    });
    await running;
    advance(1001);
    const other = { ...input, body: { amount: 101, currency: 'BRL' } };
    expect(await codeOf(run(scope, other, lambdaContext(), work()))).toBe('IDEMPOTENCY_KEY_REUSED');
    const res = await run(scope, input, lambdaContext(), work());
    expect(res.statusCode).toBe(201);
    expect(calls()).toBe(1);
  });

  it('deletes the record when the work throws before any effect, so a retry runs the work again', async () => {
    const { run, work, calls, store } = setup();
    const boom = new AppError('PAYMENT_METHOD_NOT_FOUND');
    await expect(run(scope, input, lambdaContext(), async () => Promise.reject(boom))).rejects.toBe(boom);
    expect(store.items.size).toBe(0);
    const res = await run(scope, input, lambdaContext(), work());
    expect(res.headers?.[REPLAYED_HEADER]).toBeUndefined();
    expect(calls()).toBe(1);
    expect(store.items.size).toBe(1);
  });

  it('the answer committed with the effect needs no second write, and a crash after the commit replays it', async () => {
    type Env = ReturnType<typeof setup>;
    const committing =
      (env: Env, hang: boolean) => async (answering: (r: Result) => Promise<Parameters<Env['store']['commitDone']>[0]>) => {
        const r = await env.work()();
        expect(env.store.commitDone(await answering(r))).toBe(true); // the effect's transaction, with the record
        return hang ? new Promise<Result>(() => undefined) : r;
      };
    const crashed = setup();
    void crashed.run(scope, input, lambdaContext(), committing(crashed, true)); // dies right after its commit
    await new Promise((r) => setImmediate(r));
    const replay = await crashed.run(scope, input, lambdaContext(), crashed.work(500));
    expect(replay).toMatchObject({ statusCode: 201, body: '{"id":"pi_1"}', headers: { [REPLAYED_HEADER]: 'true' } });
    expect(crashed.calls()).toBe(1);

    const env = setup();
    const finish = jest.spyOn(env.store, 'finish');
    const first = await env.run(scope, input, lambdaContext(), committing(env, false));
    expect(first.body).toBe('{"id":"pi_1"}');
    expect(finish).not.toHaveBeenCalled();
    expect(env.calls()).toBe(1);
  });

  it('records the final answer when it differs from the committed one (a provider called after the commit)', async () => {
    const { run, store } = setup();
    const first = await run(scope, input, lambdaContext(), async (answering) => {
      store.commitDone(await answering({ statusCode: 200, body: '{"status":"processing"}' }));
      return { statusCode: 200, body: '{"status":"processing","order":"o-1"}' };
    });
    const replay = await run(scope, input, lambdaContext(), async () => ({ statusCode: 500, body: '' }));
    expect(replay.body).toBe(first.body);
  });

  it('reopens the record when the work fails after its effect committed: the same request runs again, another body is 422', async () => {
    const { run, work, calls, store } = setup();
    const unavailable = new AppError('PROVIDER_UNAVAILABLE');
    const failed = run(scope, input, lambdaContext(), async (answering) => {
      store.commitDone(await answering({ statusCode: 200, body: '{"status":"pending"}' }));
      throw unavailable;
    });
    await expect(failed).rejects.toBe(unavailable);
    expect([...store.items.values()][0]?.status).toBe('REOPENED');
    const other = { ...input, body: { amount: 101, currency: 'BRL' } };
    expect(await codeOf(run(scope, other, lambdaContext(), work()))).toBe('IDEMPOTENCY_KEY_REUSED');
    const again = await run(scope, input, lambdaContext(), work());
    expect(again.headers?.[REPLAYED_HEADER]).toBeUndefined();
    expect(calls()).toBe(1);
    expect((await run(scope, input, lambdaContext(), work())).body).toBe(again.body);
  });

  it('answers 409 when the effect found its claim taken over by another attempt', async () => {
    const { run } = setup();
    expect(await codeOf(run(scope, input, lambdaContext(), async () => Promise.reject(new WriteConflict('idempotency'))))).toBe(
      'IDEMPOTENCY_IN_PROGRESS',
    );
  });
});
