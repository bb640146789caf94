/**
 * The AWS bill of one payment, from what `npm run cost` measured on the local stack: the pure arithmetic,
 * list prices included (unit-tested in test/unit/cost-model.test.ts).
 */

/** us-east-1 list prices, as published on the AWS pricing pages named here; taken 2026-11-23. */
export const PRICES = {
  takenOn: '2026-11-23',
  /** AWS Lambda pricing: Arm, per GB-second (first 6 billion GB-s a month), and per request. */
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  /** Amazon API Gateway pricing: HTTP APIs, per request (first 300 million a month). */
  httpApiRequest: 1.0 / 1e6,
  /** Amazon DynamoDB pricing, on-demand (after the November 2024 cut): per write and read request unit. */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  /** Amazon SQS pricing: standard queues, per request (each 64 KB chunk is one request). */
  sqsRequest: 0.4 / 1e6,
  /** Amazon CloudWatch pricing: Logs ingestion, Standard class, per GB. */
  logsIngestedGb: 0.5,
  /** AWS X-Ray pricing: per trace recorded. */
  xrayTrace: 5.0 / 1e6,
} as const;

/** Lambda's own START, END and REPORT lines per invocation (text format), bytes: not written by our code. */
export const PLATFORM_LOG_BYTES_PER_INVOCATION = 330;

export interface FunctionUse {
  readonly invocations: number;
  /** Billed duration: each invocation rounded up to the millisecond. */
  readonly billedMs: number;
  readonly memoryMb: number;
}

/** What one payment of a mix used, on average. */
export interface Usage {
  readonly functions: Readonly<Record<string, FunctionUse>>;
  readonly apiRequests: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly sqsRequests: number;
  readonly logBytes: number;
  readonly traces: number;
}

export interface Line {
  readonly component: string;
  readonly perPayment: string;
  /** US dollars per one million payments. */
  readonly dollarsPerMillion: number;
}

export function costLines(u: Usage): Line[] {
  const m = 1e6;
  const lines: Line[] = [];
  let invocations = 0;
  for (const [name, f] of Object.entries(u.functions).sort()) {
    invocations += f.invocations;
    const gbSeconds = (f.billedMs / 1000) * (f.memoryMb / 1024);
    lines.push({
      component: `Lambda ${name} (${f.memoryMb} MB)`,
      perPayment: `${f.invocations.toFixed(2)} inv, ${f.billedMs.toFixed(1)} ms`,
      dollarsPerMillion: gbSeconds * PRICES.lambdaArmGbSecond * m,
    });
  }
  lines.push({
    component: 'Lambda requests',
    perPayment: `${invocations.toFixed(2)}`,
    dollarsPerMillion: invocations * PRICES.lambdaRequest * m,
  });
  lines.push({
    component: 'API Gateway HTTP API',
    perPayment: `${u.apiRequests.toFixed(2)} req`,
    dollarsPerMillion: u.apiRequests * PRICES.httpApiRequest * m,
  });
  lines.push({
    component: 'DynamoDB writes',
    perPayment: `${u.writeUnits.toFixed(1)} WRU`,
    dollarsPerMillion: u.writeUnits * PRICES.dynamoWriteUnit * m,
  });
  lines.push({
    component: 'DynamoDB reads',
    perPayment: `${u.readUnits.toFixed(1)} RRU`,
    dollarsPerMillion: u.readUnits * PRICES.dynamoReadUnit * m,
  });
  lines.push({ component: 'SQS', perPayment: `${u.sqsRequests.toFixed(2)} req`, dollarsPerMillion: u.sqsRequests * PRICES.sqsRequest * m });
  const logBytes = u.logBytes + invocations * PLATFORM_LOG_BYTES_PER_INVOCATION;
  lines.push({
    component: 'CloudWatch Logs ingestion',
    perPayment: `${(logBytes / 1024).toFixed(1)} KB`,
    dollarsPerMillion: (logBytes / 1024 ** 3) * PRICES.logsIngestedGb * m,
  });
  lines.push({ component: 'X-Ray traces', perPayment: `${u.traces.toFixed(2)}`, dollarsPerMillion: u.traces * PRICES.xrayTrace * m });
  return lines;
}

/**
 * The share of requests X-Ray records under its default sampling rule (the first request each second and
 * 5% of the others), at the average rate of 1M payments a month (0.386 payments/s) times the mix's
 * requests per payment; each recorded request is one trace (the SQS-triggered functions join it).
 */
export function sampledShare(requestsPerPayment: number): number {
  const perSecond = (1e6 / (30 * 24 * 3600)) * requestsPerPayment;
  return perSecond <= 1 ? 1 : (1 + 0.05 * (perSecond - 1)) / perSecond;
}

export const total = (lines: readonly Line[]) => lines.reduce((sum, l) => sum + l.dollarsPerMillion, 0);
