import { costLines, PLATFORM_LOG_BYTES_PER_INVOCATION, PRICES, sampledShare, total, type Usage } from '../../scripts/cost-model';

const usage = (over: Partial<Usage> = {}): Usage => ({
  functions: {},
  apiRequests: 0,
  readUnits: 0,
  writeUnits: 0,
  sqsRequests: 0,
  logBytes: 0,
  traces: 0,
  ...over,
});
const line = (u: Usage, name: string) => costLines(u).find((l) => l.component.startsWith(name))!.dollarsPerMillion;

describe('cost model (npm run cost)', () => {
  it('Lambda compute is GB-seconds at the function memory: 1M x 100 ms at 512 MB = 50,000 GB-s', () => {
    const u = usage({ functions: { f: { invocations: 1, billedMs: 100, memoryMb: 512 } } });
    expect(line(u, 'Lambda f')).toBeCloseTo(50_000 * PRICES.lambdaArmGbSecond, 6);
    expect(line(u, 'Lambda requests')).toBeCloseTo(0.2, 6);
  });

  it('API Gateway, DynamoDB units, SQS and X-Ray are priced per unit per payment', () => {
    const u = usage({ apiRequests: 2, writeUnits: 10, readUnits: 4, sqsRequests: 3, traces: 1 });
    expect(line(u, 'API Gateway')).toBeCloseTo(2, 6);
    expect(line(u, 'DynamoDB writes')).toBeCloseTo(6.25, 6);
    expect(line(u, 'DynamoDB reads')).toBeCloseTo(0.5, 6);
    expect(line(u, 'SQS')).toBeCloseTo(1.2, 6);
    expect(line(u, 'X-Ray')).toBeCloseTo(5, 6);
  });

  it("logs add Lambda's own lines per invocation to what the code wrote", () => {
    const u = usage({ functions: { f: { invocations: 2, billedMs: 2, memoryMb: 256 } }, logBytes: 1000 });
    const bytes = 1000 + 2 * PLATFORM_LOG_BYTES_PER_INVOCATION;
    expect(line(u, 'CloudWatch')).toBeCloseTo((bytes / 1024 ** 3) * 0.5 * 1e6, 6);
  });

  it('total is the sum of the components', () => {
    const lines = costLines(usage({ apiRequests: 1, writeUnits: 1 }));
    expect(total(lines)).toBeCloseTo(1 + 0.625, 6);
  });

  it('X-Ray default sampling: everything under 1 request/s, then 1/s plus 5% of the rest', () => {
    expect(sampledShare(1)).toBe(1); // 0.39 requests/s at 1M payments a month
    const perSecond = (1e6 / (30 * 24 * 3600)) * 10;
    expect(sampledShare(10)).toBeCloseTo((1 + 0.05 * (perSecond - 1)) / perSecond, 9);
    expect(sampledShare(1000)).toBeLessThan(0.06);
  });
});
