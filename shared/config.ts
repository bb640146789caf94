/**
 * Runtime configuration from the environment. Read at call time (cheap), so the
 * local stack and tests can point the same code at their own table and queues.
 */
import type { Mode } from './domain/access';
import { queueUrlEnv, type QueueId } from './manifest/queues';

export type Stage = 'sandbox' | 'live';

const env = (name: string): string | undefined => {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
};

/** A number from the environment within [min, max] (clamped at max), else the fallback. */
function bounded(name: string, fallback: number, min: number, max: number): number {
  const v = Number(env(name) ?? fallback);
  return Number.isFinite(v) && v >= min ? Math.min(v, max) : fallback;
}

function required(name: string): string {
  const v = env(name);
  if (!v) throw new Error(`Missing environment variable ${name}`);
  return v;
}

export const config = {
  get stage(): Stage {
    return env('STAGE') === 'live' ? 'live' : 'sandbox';
  },
  get region(): string {
    return env('AWS_REGION') ?? env('AWS_DEFAULT_REGION') ?? 'us-east-1';
  },
  get tableName(): string {
    return required('TABLE_NAME');
  },
  /** Set only on the local stack and in tests (DynamoDB Local). */
  get dynamoEndpoint(): string | undefined {
    return env('DYNAMODB_ENDPOINT');
  },
  /** Set only on the local stack and in tests (fauxqs). */
  get sqsEndpoint(): string | undefined {
    return env('SQS_ENDPOINT');
  },
  queueUrl(id: QueueId): string {
    return required(queueUrlEnv(id));
  },
  deadLetterUrl(id: QueueId): string {
    return required(`${queueUrlEnv(id)}_DLQ`);
  },
  /**
   * Key modes this stage accepts. The sandbox stage serves sk_test_ keys only and
   * the live stage sk_live_ keys only, unless ALLOWED_KEY_MODES says otherwise.
   */
  get allowedKeyModes(): readonly Mode[] {
    const listed = (env('ALLOWED_KEY_MODES') ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter((m): m is Mode => m === 'test' || m === 'live');
    // Unset or unreadable: the stage's own mode, never "no key works".
    if (listed.length > 0) return listed;
    return this.stage === 'live' ? ['live'] : ['test'];
  },
  /** How long a container caches an API key lookup (ms). */
  get authCacheTtlMs(): number {
    const v = Number(env('AUTH_CACHE_TTL_MS') ?? 10_000);
    return Number.isFinite(v) && v >= 0 ? v : 10_000;
  },
  /** Webhook retry schedule in seconds (comma-separated); DESIGN.md's ≈3-day schedule by default. */
  get webhookRetrySchedule(): string | undefined {
    return env('WEBHOOK_RETRY_SCHEDULE');
  },
  /** Loopback webhook targets: only the local stack and tests set this; deployed stages never do. */
  get webhookAllowLoopback(): boolean {
    return env('WEBHOOK_ALLOW_LOOPBACK') === 'true';
  },
  get webhookTimeoutMs(): number {
    const v = Number(env('WEBHOOK_TIMEOUT_MS') ?? 10_000);
    return Number.isFinite(v) && v > 0 ? v : 10_000;
  },
  /** Seconds between sandbox payout settlement steps. */
  get payoutSettlementDelaySeconds(): number {
    return bounded('PAYOUT_SETTLEMENT_DELAY_SECONDS', 5, 0, 900);
  },
  /** Seconds before a sandbox refund settles (succeeds, or fails for amounts ending in .13). */
  get refundSettlementDelaySeconds(): number {
    return bounded('REFUND_SETTLEMENT_DELAY_SECONDS', 5, 0, 900);
  },
  /** Seconds after its intent before a provider-held payment is first read back (its own request normally settles it). */
  get providerFirstCheckSeconds(): number {
    return bounded('PROVIDER_FIRST_CHECK_SECONDS', 60, 0, 3600);
  },
  /**
   * Seconds the reconciliation job stays to read young payments back at their early times (10, 30, 60 s) before
   * the next scheduled run; 0: one pass per run. The local stack runs jobs on its own timers and defaults to 0.
   */
  get providerReadBackWindowSeconds(): number {
    return bounded('PROVIDER_READ_BACK_WINDOW_SECONDS', 50, 0, 55);
  },
  /** Seconds between read-backs of an open provider-held charge (shorter locally to prove reconciliation quickly). */
  get providerCheckIntervalSeconds(): number {
    return bounded('PROVIDER_CHECK_INTERVAL_SECONDS', 120, 1, 3600);
  },
  /**
   * Days of PIX infractions (MED) the readPixDisputes job reads each run: the PSP lists a case by its opening, so
   * the window must span its whole analysis (the central bank's 7 days, plus a defense) for its close to be seen.
   */
  get pixDisputeWindowDays(): number {
    return bounded('PIX_DISPUTE_WINDOW_DAYS', 14, 1, 90);
  },
  /** Seconds a charge the provider never created is given (a request still retrying) before its payment fails. */
  get providerLostIntentSeconds(): number {
    return bounded('PROVIDER_LOST_INTENT_SECONDS', 120, 0, 3600);
  },
  /** Public base URL of the service, for checkout_url and similar links. */
  get publicBaseUrl(): string | undefined {
    return env('PUBLIC_BASE_URL');
  },
};
