/**
 * The state behind the in-memory stores: one "table" shared by the payment, payout, event, merchant and
 * API-key stores, as the DynamoDB adapters share one table. A write is a list of conditional items run like
 * a TransactWriteItems: every condition is evaluated against the state before any item is applied; when one
 * fails nothing is applied and WriteConflict names the entity of the first failing item, in the order the
 * adapter adds them (shared/adapters/dynamodb/transact.ts). An item is touched at most once per transaction
 * (DynamoDB rejects two operations on one item) and stored values are deep copies, read back as deep copies.
 */
import { WriteConflict, type EntityTag, type WebhookSecrets } from '../../../shared/application/ports';
import type { StoredEvent } from '../../../shared/application/webhooks';
import type { ApiKey, Merchant } from '../../../shared/domain/merchant';
import type { Payment } from '../../../shared/domain/payments/payment';
import type { CheckoutSession } from '../../../shared/domain/payments/session';
import type { Payout } from '../../../shared/domain/payouts/payout';
import type { Refund } from '../../../shared/domain/refunds/refund';

/**
 * Stands for the raw ConditionalCheckFailedException / TransactionCanceledException that some adapters let
 * escape untagged (merchant create, secret rotation, API key create, recordAttempt on a missing event).
 */
export class ConditionalCheckFailed extends Error {
  constructor(what: string) {
    super(`The conditional request failed (${what})`);
    this.name = 'ConditionalCheckFailedException';
  }
}

/** What DynamoDB answers to a malformed request (two writes on one item, an undefined expression value, ...). */
export class ValidationException extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ValidationException';
  }
}

/** Work-index (GSI2) placement of an item: the shard and sort key the adapter writes (indexKeys.expiry). */
export interface WorkIndexEntry {
  readonly shard: number;
  readonly sortKey: string;
}

/** Internal attributes start with `_`: the adapters' stripKeys drops such attributes, and so do the stores here. */
export type StoredSession = CheckoutSession & { _expiry?: WorkIndexEntry };
export type StoredPayment = Payment & { _expiry?: WorkIndexEntry };
export type StoredEventItem = StoredEvent & { last_attempt_at?: string };

export interface BalanceItem {
  readonly merchant_id: string;
  readonly mode: string;
  readonly currency: string;
  available_minor: number;
  updated_at: string;
}

/** One balance movement, as the adapter's ledger entry item (entities/balance.entity.ts). */
export interface LedgerEntry {
  readonly entry_id: string;
  readonly merchant_id: string;
  readonly mode: string;
  readonly currency: string;
  readonly amount_minor: number;
  readonly reason: string;
  readonly object_id: string;
  readonly created_at: string;
}

/** One conditional item of a transaction. */
export interface MemoryWrite {
  readonly entity: EntityTag;
  /** Identifies the stored item: no transaction may touch one item twice. */
  readonly item: string;
  /** The ConditionExpression: true when it holds on the current state (absent: unconditional). */
  readonly check?: (t: MemoryTable) => boolean;
  readonly apply: (t: MemoryTable) => void;
}

/** Deep copy that drops undefined attributes, as the document client's removeUndefinedValues does. */
export function dynamoCopy<T>(value: T): T {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = strip(x);
      return out;
    }
    return v;
  };
  return strip(structuredClone(value)) as T;
}

/** The domain object of a stored item: keys and internal (`_`) attributes dropped, deep-copied. */
export function strip<T>(item: object): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) if (!k.startsWith('_')) out[k] = v;
  return structuredClone(out) as T;
}

/**
 * A SET clause's values: the document client drops undefined expression values, after which DynamoDB
 * refuses the request, so an undefined in a patch is an error here too (before anything is applied).
 */
export function setValues(fields: Record<string, unknown>, what: string): Record<string, unknown> {
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) throw new ValidationException(`${what}: ExpressionAttributeValues has no value for ${k} (undefined)`);
  }
  return dynamoCopy(fields);
}

export class MemoryTable {
  readonly sessions = new Map<string, StoredSession>();
  readonly payments = new Map<string, StoredPayment>();
  readonly payouts = new Map<string, Payout>();
  readonly refunds = new Map<string, Refund>();
  readonly events = new Map<string, StoredEventItem>();
  /** Key: merchant|mode|currency. */
  readonly balances = new Map<string, BalanceItem>();
  /** Key: merchant|mode|currency|at|entryId (the ledger entry's sort key). */
  readonly ledger = new Map<string, LedgerEntry>();
  /** Key: merchant|mode; one count per status plus `total`. */
  readonly payoutCounters = new Map<string, Record<string, number>>();
  readonly merchants = new Map<string, Merchant>();
  readonly webhookSecrets = new Map<string, WebhookSecrets>();
  /** Key: SHA-256 of the raw key. */
  readonly apiKeys = new Map<string, ApiKey>();

  /** Transactions committed so far (tests read it to see how many writes a use case made). */
  commits = 0;
  private readonly before: Array<() => Promise<void> | void> = [];
  private readonly rewrites: Array<(writes: readonly MemoryWrite[]) => MemoryWrite[]> = [];

  /**
   * Runs `fn` once, right before the next transaction evaluates its conditions: a concurrent writer that
   * got in between the use case's reads and its write.
   */
  beforeNextTransaction(fn: () => Promise<void> | void): void {
    this.before.push(fn);
  }

  /**
   * Test-only tampering with every later transaction (mutation tests: prove an invariant check notices a
   * store that, say, skips the balance condition). Never used by the faithful stores themselves.
   */
  tamper(rewrite: (writes: readonly MemoryWrite[]) => MemoryWrite[]): void {
    this.rewrites.push(rewrite);
  }

  async transact(writes: readonly MemoryWrite[]): Promise<void> {
    const hooks = this.before.splice(0);
    for (const hook of hooks) await hook();
    let items = [...writes];
    for (const r of this.rewrites) items = r(items);
    if (items.length === 0 || items.length > 100)
      throw new ValidationException(`TransactItems must have 1 to 100 items, got ${items.length}`);
    const seen = new Set<string>();
    for (const w of items) {
      if (seen.has(w.item)) throw new ValidationException(`Transaction request cannot include multiple operations on one item (${w.item})`);
      seen.add(w.item);
    }
    // No await from here on: conditions and writes happen atomically with respect to other async callers.
    const failed = items.find((w) => w.check && !w.check(this));
    if (failed) throw new WriteConflict(failed.entity);
    for (const w of items) w.apply(this);
    this.commits++;
  }

  /** Every ledger entry, oldest first (by created_at, then entry id, as the ledger sort key orders them). */
  ledgerEntries(filter: Partial<Pick<LedgerEntry, 'merchant_id' | 'mode' | 'currency' | 'object_id' | 'reason'>> = {}): LedgerEntry[] {
    return [...this.ledger.values()]
      .filter((e) => Object.entries(filter).every(([k, v]) => e[k as keyof LedgerEntry] === v))
      .sort((a, b) => (a.created_at + a.entry_id).localeCompare(b.created_at + b.entry_id))
      .map((e) => structuredClone(e));
  }

  balanceOf(merchantId: string, mode: string, currency: string): number {
    return this.balances.get(`${merchantId}|${mode}|${currency}`)?.available_minor ?? 0;
  }
}

export const balanceKey = (merchantId: string, mode: string, currency: string) => `${merchantId}|${mode}|${currency}`;
