import {
  costLines,
  emfSeriesKeys,
  emptyCount,
  indexWriteUnits,
  itemSize,
  LOG_EVENT_OVERHEAD_BYTES,
  PLATFORM_LOG_BYTES_PER_INVOCATION,
  PRICES,
  sampledShare,
  storageBytes,
  total,
  transactWriteUnits,
  usageFrom,
  type Item,
  type Usage,
} from '../../scripts/cost-model';

const usage = (over: Partial<Usage> = {}): Usage => ({
  functions: {},
  apiRequests: 0,
  readUnits: 0,
  writeUnits: 0,
  sqsRequests: 0,
  logBytes: 0,
  logEvents: 0,
  tracesRecorded: 0,
  tracesRetrieved: 0,
  ...over,
});
const line = (u: Usage, name: string) => costLines(u).find((l) => l.component.startsWith(name))!.dollarsPerMillion;
const fn = (invocations: number, billedMs: number, memoryMb: number) => ({ invocations, billedMs, cpuShareMs: billedMs, memoryMb });

const GSI1 = { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' };
const GSI2 = { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' };
const INDEXES = [GSI1, GSI2];
const s = (v: string) => ({ S: v });
/** An item of about `bytes` bytes, in the indexes named. */
const item = (id: string, bytes: number, ...ix: Array<'GSI1' | 'GSI2'>): Item => ({
  PK: s(id),
  SK: s('X'),
  ...(ix.includes('GSI1') ? { GSI1PK: s('m'), GSI1SK: s(id) } : {}),
  ...(ix.includes('GSI2') ? { GSI2PK: s('w'), GSI2SK: s(id) } : {}),
  v: s('x'.repeat(bytes)),
});

describe('cost model (npm run cost)', () => {
  it('Lambda compute is GB-seconds at the function memory: 1M x 100 ms at 512 MB = 50,000 GB-s', () => {
    const u = usage({ functions: { f: fn(1, 100, 512) } });
    expect(line(u, 'Lambda f')).toBeCloseTo(50_000 * PRICES.lambdaArmGbSecond, 6);
    expect(line(u, 'Lambda requests')).toBeCloseTo(0.2, 6);
  });

  it('API Gateway, DynamoDB units, SQS and X-Ray are priced per unit per payment', () => {
    const u = usage({ apiRequests: 2, writeUnits: 10, readUnits: 4, sqsRequests: 3, tracesRecorded: 1, tracesRetrieved: 2 });
    expect(line(u, 'API Gateway')).toBeCloseTo(2, 6);
    expect(line(u, 'DynamoDB writes')).toBeCloseTo(6.25, 6); // $0.625 per 1M WRU (on-demand since November 2024)
    expect(line(u, 'DynamoDB reads')).toBeCloseTo(0.5, 6);
    expect(line(u, 'SQS')).toBeCloseTo(1.2, 6);
    expect(line(u, 'X-Ray traces recorded')).toBeCloseTo(5, 6);
    expect(line(u, 'X-Ray traces retrieved')).toBeCloseTo(1, 6);
  });

  it("logs add each event's overhead and Lambda's own lines per invocation to what the code wrote", () => {
    expect(PLATFORM_LOG_BYTES_PER_INVOCATION).toBeGreaterThan(250);
    expect(PLATFORM_LOG_BYTES_PER_INVOCATION).toBeLessThan(450);
    const u = usage({ functions: { f: fn(2, 2, 256) }, logBytes: 1000, logEvents: 4 });
    const bytes = 1000 + 4 * LOG_EVENT_OVERHEAD_BYTES + 2 * (PLATFORM_LOG_BYTES_PER_INVOCATION + 3 * LOG_EVENT_OVERHEAD_BYTES);
    expect(line(u, 'CloudWatch')).toBeCloseTo((bytes / 1024 ** 3) * 0.5 * 1e6, 6);
  });

  it('total is the sum of the components', () => {
    expect(total(costLines(usage({ apiRequests: 1, writeUnits: 1 })))).toBeCloseTo(1 + 0.625, 6);
  });

  it('X-Ray sampling: everything under 1 request/s, then 1/s plus 5% of the rest', () => {
    expect(sampledShare(1)).toBe(1); // 0.39 invocations/s at 1M payments a month
    const perSecond = (1e6 / (30 * 24 * 3600)) * 10;
    expect(sampledShare(10)).toBeCloseTo((1 + 0.05 * (perSecond - 1)) / perSecond, 9);
    expect(sampledShare(1000)).toBeLessThan(0.06);
  });

  it('item sizes follow DynamoDB: names plus values, numbers by significant digits, 3 + 1 per element for maps and lists', () => {
    expect(itemSize({ PK: s('abc') })).toBe(5);
    expect(itemSize({ n: { N: '100' } })).toBe(1 + 2); // one significant digit: 1 byte + 1
    expect(itemSize({ n: { N: '-123.45' } })).toBe(1 + 4); // five digits: 3 bytes + 1
    expect(itemSize({ ok: { BOOL: true }, z: { NULL: true } })).toBe(2 + 1 + 1 + 1);
    expect(itemSize({ m: { M: { a: s('xy'), b: { N: '7' } } } })).toBe(1 + 3 + (1 + 2 + 1) + (1 + 2 + 1));
    expect(itemSize({ l: { L: [s('ab'), s('c')] } })).toBe(1 + 3 + (2 + 1) + (1 + 1));
    expect(itemSize({ ss: { SS: ['ab', 'cde'] } })).toBe(2 + 5);
  });

  it('index writes: put in, delete out, both when the key changes, one update for projected attributes, none outside', () => {
    const small = item('a', 100, 'GSI1', 'GSI2');
    expect(indexWriteUnits(undefined, small, GSI1)).toBe(1);
    expect(indexWriteUnits(small, undefined, GSI1)).toBe(1);
    expect(indexWriteUnits(small, { ...small, v: s('changed') }, GSI1)).toBe(1);
    expect(indexWriteUnits(small, small, GSI1)).toBe(0);
    expect(indexWriteUnits(small, { ...small, GSI2SK: s('later') }, GSI2)).toBe(2);
    const { GSI2PK: _p, GSI2SK: _s, ...leftGsi2 } = small;
    expect(indexWriteUnits(small, leftGsi2, GSI2)).toBe(1);
    expect(indexWriteUnits(item('b', 10), item('b', 20), GSI1)).toBe(0);
    expect(indexWriteUnits(undefined, item('c', 1500, 'GSI1'), GSI1)).toBe(2); // per 1 KB
  });

  it('a KEYS_ONLY index: its copy is the keys; a change that keeps them writes nothing to it', () => {
    const keysOnly = { ...GSI1, projection: 'KEYS_ONLY' as const };
    const big = item('a', 3000, 'GSI1');
    expect(indexWriteUnits(undefined, big, GSI1)).toBe(3);
    expect(indexWriteUnits(undefined, big, keysOnly)).toBe(1); // PK, SK, GSI1PK, GSI1SK: a few bytes
    expect(indexWriteUnits(big, { ...big, v: s('delivered') }, GSI1)).toBe(3);
    expect(indexWriteUnits(big, { ...big, v: s('delivered') }, keysOnly)).toBe(0);
    expect(indexWriteUnits(big, { ...big, GSI1SK: s('moved') }, keysOnly)).toBe(2);
    expect(indexWriteUnits(big, undefined, keysOnly)).toBe(1);
    const keys = { PK: big.PK!, SK: big.SK!, GSI1PK: big.GSI1PK!, GSI1SK: big.GSI1SK! };
    expect(storageBytes([big], [keysOnly])).toBe(itemSize(big) + 100 + itemSize(keys) + 100);
  });

  it('TransactWriteItems: each item twice on the table per 1 KB of its larger size, a ConditionCheck as a write, indexes once', () => {
    // What DynamoDB Local reports for single-item transactions (its table part is right there; it is
    // several-item transactions it under-counts): a small put 2, a 1.5 KB put 4.
    expect(transactWriteUnits([{ action: 'Put', after: item('a', 100) }], INDEXES)).toEqual({ table: 2, index: 0, indexDoubled: 0 });
    expect(transactWriteUnits([{ action: 'Put', after: item('a', 1500) }], INDEXES).table).toBe(4);
    const payout = item('po', 600, 'GSI1', 'GSI2');
    const { GSI2PK: _p, GSI2SK: _s, ...settled } = payout;
    const r = transactWriteUnits(
      [
        { action: 'Update', before: payout, after: { ...settled, v: s('done') } }, // 2 + GSI1 update 1 + GSI2 delete 1
        { action: 'Put', after: item('evt', 700, 'GSI1', 'GSI2') }, // 2 + 1 + 1
        { action: 'Update', before: item('bal', 50), after: item('bal', 60) }, // 2
        { action: 'ConditionCheck', before: item('key', 1200, 'GSI1'), after: item('key', 1200, 'GSI1') }, // 2 x 2 KB, no index write
      ],
      INDEXES,
    );
    expect(r).toEqual({ table: 2 + 2 + 2 + 4, index: 4, indexDoubled: 8 });
  });

  it('storage: item plus 100 bytes, again for every index holding it', () => {
    const a = item('a', 100, 'GSI1');
    const b = item('b', 100);
    expect(storageBytes([a, b], INDEXES)).toBe(2 * (itemSize(a) + 100) + (itemSize(b) + 100));
  });

  it('usage per payment: counts over the runs, API requests from routes only, traces sampled per function', () => {
    const route = { ...emptyCount(), n: 6, billedMs: 60, cpuShareMs: 90, writeUnits: 12, logBytes: 600, logEvents: 6 };
    const consumer = { ...emptyCount(), n: 2, billedMs: 40, cpuShareMs: 40, readUnits: 3, sqs: 4 };
    const u = usageFrom(
      [
        { id: 'api', memoryMb: 256, route: true, c: route },
        { id: 'worker', memoryMb: 512, route: false, c: consumer },
      ],
      2,
    );
    expect(u.functions.api).toEqual({ invocations: 3, billedMs: 30, cpuShareMs: 45, memoryMb: 256 });
    expect(u.apiRequests).toBe(3);
    expect([u.writeUnits, u.readUnits, u.sqsRequests, u.logBytes, u.logEvents]).toEqual([6, 1.5, 2, 300, 3]);
    expect(u.tracesRecorded).toBeCloseTo(3 * sampledShare(3) + 1, 9);
  });

  it('EMF lines: one custom metric per namespace, dimension values and metric name', () => {
    const emf = (route: string) =>
      JSON.stringify({
        _aws: {
          CloudWatchMetrics: [{ Namespace: 'N', Dimensions: [['service', 'route']], Metrics: [{ Name: 'Requests' }, { Name: 'Latency' }] }],
        },
        service: 's',
        route,
        Requests: 1,
        Latency: 3,
      });
    const keys = new Set([...emfSeriesKeys(emf('a')), ...emfSeriesKeys(emf('a')), ...emfSeriesKeys(emf('b'))]);
    expect(keys.size).toBe(4);
    expect(emfSeriesKeys('{"level":"WARN"}')).toEqual([]);
  });
});
