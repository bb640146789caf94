/**
 * The interfaces use cases depend on. Adapters implement them (DynamoDB, crypto,
 * the system clock); unit tests pass in-memory fakes: no AWS, no module spying.
 */
import type { ApiKey, Merchant, MerchantRouteRule, MerchantStatus } from '../../domain/merchant';
import type { Mode } from '../../domain/access';
import type { DomainEvent } from '../../domain/events';

/**
 * What a use case hands the events its transaction committed to. On the deployed and local stacks the commit
 * itself is the hand-over (the table's stream dispatches each event item it inserts: shared/wiring/webhooks.ts),
 * so the wired publisher does nothing more; unit tests pass a recording one to see exactly what was committed.
 * Never throws.
 */
export interface EventPublisher {
  publish(events: readonly DomainEvent[]): Promise<void>;
}

/** Runs a store write that commits events and publishes exactly the events it committed. */
export async function commitAndPublish(publisher: EventPublisher, write: Promise<readonly DomainEvent[]>): Promise<void> {
  await publisher.publish(await write);
}

/** The stored objects a transaction can touch: a failed condition names the one whose condition failed. */
export type EntityTag =
  | 'session'
  | 'payment'
  | 'attempt_watch'
  | 'refund'
  | 'payout'
  | 'balance'
  | 'ledger_entry'
  | 'pending_credit'
  | 'event'
  | 'payout_counters'
  | 'deposit'
  | 'clabe_claim'
  | 'mandate'
  | 'mandate_cycle'
  | 'dispute'
  /** The idempotency record of a keyed request: its claim is no longer this attempt's. */
  | 'idempotency'
  | 'unknown';

/** A conditional write (or one item of a transaction) found the stored state changed: `entity` names which. */
export class WriteConflict extends Error {
  constructor(readonly entity: EntityTag) {
    super(`conditional write failed on ${entity}`);
    this.name = 'WriteConflict';
  }
}

export interface Clock {
  now(): Date;
}

export interface IdGenerator {
  /** prefix + at least 128 random bits, URL-safe (mch_, key_, cs_, pi_, po_, evt_). */
  newId(prefix: string): string;
}

export interface SecretGenerator {
  /** A new API key: sk_test_ / sk_live_ + 256 random bits. */
  apiKey(mode: Mode): string;
  /** whsec_ + base64 of 32 random bytes (DESIGN.md section 5). */
  webhookSecret(): string;
  /** SHA-256 hex of a raw API key: the only form in which keys are stored. */
  hashKey(rawKey: string): string;
}

export interface WebhookSecrets {
  readonly current: string;
  /** The secret before the last rotation; it keeps signing until previous_expires_at. */
  readonly previous: string | null;
  readonly previous_expires_at: string | null;
  readonly rotated_at: string | null;
}

export interface MerchantRepository {
  /** Merchant profile, its webhook secret and its first API key, in one transaction. */
  create(merchant: Merchant, secret: string, firstKey: ApiKey, firstKeyHash: string): Promise<void>;
  get(merchantId: string): Promise<Merchant | null>;
  /** Conditional: fails with MERCHANT_NOT_FOUND when absent. */
  setStatus(merchantId: string, status: MerchantStatus, at: Date): Promise<Merchant>;
  /** Replaces the per-route rate-limit overrides; conditional: MERCHANT_NOT_FOUND when absent. */
  setRateLimits(merchantId: string, limits: Record<string, number>, at: Date): Promise<Merchant>;
  /** Sets the routing override of one kind and country (`*`), keeping the others; conditional: MERCHANT_NOT_FOUND when absent. */
  setRoutingRule(merchantId: string, kind: string, country: string, rule: MerchantRouteRule, at: Date): Promise<Merchant>;
  /** Deletes that override (and a kind left with none); `removed` false when there was none. MERCHANT_NOT_FOUND when absent. */
  removeRoutingRule(merchantId: string, kind: string, country: string, at: Date): Promise<{ merchant: Merchant; removed: boolean }>;
  getWebhookSecrets(merchantId: string): Promise<WebhookSecrets | null>;
  /** Conditional on the current secret still being `expectedCurrent` (no lost rotation). */
  rotateWebhookSecret(merchantId: string, expectedCurrent: string, next: WebhookSecrets): Promise<void>;
}

export interface ApiKeyRepository {
  create(key: ApiKey, hash: string): Promise<void>;
  findByHash(hash: string): Promise<ApiKey | null>;
  listByMerchant(merchantId: string): Promise<ApiKey[]>;
  /** Conditional on the key being active; returns the revoked key, or null when there is no such active key. */
  revoke(merchantId: string, keyId: string, at: Date): Promise<ApiKey | null>;
}

export interface RateLimitCounter {
  /**
   * Takes `units` requests of the window at once, atomically and only while the count stays within `limit`.
   * Returns the count after this reservation, or null when the window has fewer than `units` left.
   */
  reserve(subject: string, routeId: string, windowStart: number, units: number, limit: number, expiresAt: number): Promise<number | null>;
}
