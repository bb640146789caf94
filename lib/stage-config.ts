/**
 * Per-stage settings for the CDK app. The stage comes from `-c stage=sandbox|live`.
 * sandbox serves sk_test_ keys only, live serves sk_live_ keys only.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { QueueId } from '../shared/manifest/queues';

export const STAGES = ['sandbox', 'live'] as const;
export type Stage = (typeof STAGES)[number];
export type KeyMode = 'test' | 'live';

/** Prefix of every physical name (queues, topic, table). */
export const SERVICE_PREFIX = 'latam-payments';
/** POWERTOOLS_SERVICE_NAME of every function: the `service` dimension of each metric it publishes. */
export const SERVICE_NAME = 'latam-payments';
/** The functions' metrics namespace (shared/observability's default); each stage publishes under `<this>/<stage>`. */
export const METRICS_NAMESPACE = 'LatamPayments';

export interface AlarmThresholds {
  /** Period of every alarm metric. */
  readonly period: Duration;
  /** Lambda Errors (unhandled failures) per period that raise an alarm. */
  readonly functionErrors: number;
  /** API Gateway 5xx responses per period that raise an alarm. */
  readonly api5xx: number;
  /** Consecutive breaching periods before an alarm fires. */
  readonly evaluationPeriods: number;
  /** Webhook delivery attempts that failed (non-2xx, timeout, refused), percent of attempts in a period... */
  readonly webhookFailurePercent: number;
  /** ...once at least this many attempts were made in it (a few merchants' dead endpoints are not a page). */
  readonly webhookMinAttempts: number;
  /**
   * Age of the oldest stream record the event dispatcher is reading (committed events not yet on the delivery
   * queue: its IteratorAge), seconds.
   */
  readonly dispatchMaxAgeSeconds: number;
  /** The stage's settlement SLA: a payout processing (or a refund pending) longer than this pages, minutes. */
  readonly settlementSlaMinutes: number;
  /** p99 latency of the whole API over a period, milliseconds, for `latencyEvaluationPeriods` periods in a row. */
  readonly apiP99Ms: number;
  readonly latencyEvaluationPeriods: number;
  /** 5xx responses of one route, percent of its requests in a period, once it served `routeMinRequests`. */
  readonly route5xxPercent: number;
  readonly routeMinRequests: number;
  /** Calls to one live provider that got no usable answer (timeout, connection, TLS, 5xx, auth), percent of its calls... */
  readonly providerErrorPercent: number;
  /** ...once it got at least this many calls in a period. */
  readonly providerMinCalls: number;
  /** Callback items refused (wrong token, or not confirmed by the read-back) per period: probing or a misconfigured PSP. */
  readonly providerCallbacksRejected: number;
  /** A live payment's read-back from its provider overdue by this long (the PSP unreachable, or the job silent), minutes. */
  readonly providerReadBackOverdueMinutes: number;
}

/** The live providers whose calls and callbacks are metered (the `provider` dimension; shared/adapters/providers). */
export const PROVIDERS = ['api_pix', 'adyen', 'stp', 'dlocal', 'binance_pay'] as const;

/** The live payout providers paying from a balance of ours there (its `PayoutProviderBalanceLow` metric pages). */
export const PAYOUT_FLOAT_PROVIDERS = ['efi', 'dlocal'] as const;

/**
 * Reserved concurrency (lib/service-function.ts). Only the workers get one: it caps the DynamoDB writes and
 * outbound calls a queue backlog can cause, and keeps that capacity for them when the routes take the rest of
 * the account's. Keep the totals small: Lambda refuses a reservation that leaves the account fewer than 100
 * unreserved executions (both stages may share an account).
 */
export interface ConcurrencyLimits {
  /** Per queue: its consumer's reserved concurrency, also its event source's maximum concurrency (SQS never throttles it). */
  readonly consumers: Readonly<Record<QueueId, number>>;
  /** Every scheduled job: a run plus one overlap (a run may last its whole timeout, one schedule period). */
  readonly jobs: number;
}

export interface StageConfig {
  readonly stage: Stage;
  /** `latam-payments-<stage>`: queue and topic names start with it. */
  readonly prefix: string;
  /** CloudWatch namespace of the functions' EMF metrics, one per stage so alarms never mix sandbox and live. */
  readonly metricsNamespace: string;
  /** Physical DynamoDB table name (shared/manifest/table.ts: `${prefix}-${stage}`). */
  readonly tableName: string;
  readonly logRetention: RetentionDays;
  /** Removal policy of stateful resources (table, queues, log groups). */
  readonly removalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
  /** ALLOWED_KEY_MODES for every function. */
  readonly allowedKeyModes: readonly KeyMode[];
  readonly powertoolsLogLevel: 'INFO' | 'WARN';
  /** Default route throttling of the HTTP API's $default stage. */
  readonly apiThrottle: { readonly rateLimit: number; readonly burstLimit: number };
  readonly alarms: AlarmThresholds;
  /**
   * Days a customer-managed KMS key (lib/encryption.ts) waits in PendingDeletion once its stack deletes it
   * (7-30); live keys are retained with the stack's removal policy, so there it only bounds a manual deletion.
   */
  readonly kmsPendingWindowDays: number;
  readonly concurrency: ConcurrencyLimits;
  /**
   * X-Ray for every function. `active`: Lambda samples each function itself (the first request a second and 5%
   * of the rest, not configurable for Lambda), which at this service's rates records nearly every invocation:
   * 41-48% of the bill per payment (BENCHMARKS.md "Cost per 1M payments"). `pass-through`: a function records
   * only a trace an upstream sampled; the HTTP API samples nothing, so routes record nothing and a queue
   * consumer records only what its producer did. Logs (correlation ids), EMF metrics and alarms stay either way;
   * an investigation turns `active` on for the stage with one deploy.
   */
  readonly tracing: 'active' | 'pass-through';
  /**
   * Lambda's own log lines (JSON log format, system log level): INFO writes START, END and REPORT for every
   * invocation, about half of a payment's log bytes (issue 22); WARN keeps only what went wrong (timeouts,
   * crashes). Duration and errors stay in Lambda's metrics either way.
   */
  readonly systemLogLevel: 'INFO' | 'WARN';
}

const CONFIGS: Record<Stage, Omit<StageConfig, 'stage' | 'prefix' | 'tableName' | 'metricsNamespace'>> = {
  sandbox: {
    logRetention: RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    allowedKeyModes: ['test'],
    powertoolsLogLevel: 'INFO',
    apiThrottle: { rateLimit: 50, burstLimit: 100 },
    kmsPendingWindowDays: 7,
    concurrency: { consumers: { webhooks: 5, payouts: 5 }, jobs: 2 },
    // Integrators debugging against the sandbox read its traces; its traffic is small.
    tracing: 'active',
    systemLogLevel: 'INFO',
    alarms: {
      period: Duration.minutes(5),
      functionErrors: 10,
      api5xx: 25,
      evaluationPeriods: 1,
      // Integrators' endpoints in the sandbox are often down or not yet written.
      webhookFailurePercent: 50,
      webhookMinAttempts: 50,
      dispatchMaxAgeSeconds: 300,
      settlementSlaMinutes: 30,
      apiP99Ms: 3000,
      latencyEvaluationPeriods: 3,
      route5xxPercent: 10,
      routeMinRequests: 20,
      providerErrorPercent: 50,
      providerMinCalls: 20,
      providerCallbacksRejected: 50,
      providerReadBackOverdueMinutes: 30,
    },
  },
  live: {
    logRetention: RetentionDays.ONE_YEAR,
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
    allowedKeyModes: ['live'],
    powertoolsLogLevel: 'WARN',
    apiThrottle: { rateLimit: 500, burstLimit: 1000 },
    kmsPendingWindowDays: 30,
    concurrency: { consumers: { webhooks: 20, payouts: 10 }, jobs: 2 },
    // Traces would be the largest line of the bill (issue 22); logs, metrics and alarms carry the live stage.
    tracing: 'pass-through',
    systemLogLevel: 'WARN',
    alarms: {
      period: Duration.minutes(5),
      functionErrors: 1,
      api5xx: 5,
      evaluationPeriods: 1,
      webhookFailurePercent: 20,
      webhookMinAttempts: 20,
      dispatchMaxAgeSeconds: 300,
      // PIX, SPEI and CVU settle in seconds; bank transfers the same business day within the hour.
      settlementSlaMinutes: 60,
      apiP99Ms: 1500,
      latencyEvaluationPeriods: 3,
      route5xxPercent: 2,
      routeMinRequests: 20,
      // A PSP timing out on one call in ten is an outage for the shoppers waiting on a QR code.
      providerErrorPercent: 10,
      providerMinCalls: 5,
      providerCallbacksRejected: 10,
      providerReadBackOverdueMinutes: 15,
    },
  },
};

export function isStage(value: unknown): value is Stage {
  return typeof value === 'string' && (STAGES as readonly string[]).includes(value);
}

/** The stage from CDK context; absent means sandbox, anything else is an error. */
export function parseStage(value: unknown): Stage {
  if (value === undefined || value === null || value === '') return 'sandbox';
  if (!isStage(value)) {
    throw new Error(`Unknown stage ${JSON.stringify(value)}: use -c stage=sandbox or -c stage=live`);
  }
  return value;
}

export function stageConfig(stage: Stage): StageConfig {
  return {
    stage,
    prefix: `${SERVICE_PREFIX}-${stage}`,
    tableName: `${SERVICE_PREFIX}-${stage}`,
    metricsNamespace: `${METRICS_NAMESPACE}/${stage}`,
    ...CONFIGS[stage],
  };
}

/** CloudFormation stack names: `LatamPayments-<stage>-Stateful|Stateless`. */
export const stackName = (stage: Stage, part: 'Stateful' | 'Stateless') => `LatamPayments-${stage}-${part}`;
