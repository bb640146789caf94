/**
 * Table-level key helpers shared by the entity modules (entities/*.entity.ts): index names from the table
 * manifest, the GSI1 listing and GSI2 work-index key formats, work shards, and the envelope every item
 * carries. Each entity's own primary key lives in its module; no other module assembles a key string.
 */
import { indexFor, TABLE } from '../../manifest/table';

/** Index names, read from the table manifest (shared/manifest/table.ts), never spelled out by repositories. */
export const INDEX = {
  listing: indexFor('listing').name,
  work: indexFor('work').name,
} as const;

/** Work partitions of the work index (due expiries, money in flight, provider checks): spread over a few shards. */
export const WORK_SHARDS = 4;
export const shardOf = (id: string): number => hashShard(id, WORK_SHARDS);

/** A stable shard in [0, shards) for an id: spreads one merchant's writes over several partition keys or items. */
export function hashShard(id: string, shards: number): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return h % shards;
}

/**
 * An entity's declaration: its name and item version (stamped on every item: the envelope) and its primary
 * key; each module adds the index keys, item shape and conditional writes of that entity.
 */
export interface EntityModel {
  readonly entity: string;
  readonly version: number;
  readonly key: (...parts: never[]) => { PK: string; SK: string };
  readonly [member: string]: unknown;
}

export const envelope = (m: Pick<EntityModel, 'entity' | 'version'>) => ({ entity: m.entity, version: m.version });

export const indexKeys = {
  /** GSI1: a merchant's objects of one kind in one mode, newest last by created_at. */
  listing: (merchantId: string, mode: string, kind: string, createdAt?: string, id?: string) => ({
    GSI1PK: `MERCHANT#${merchantId}#${mode}#${kind}`,
    ...(createdAt && id ? { GSI1SK: `${createdAt}#${id}` } : {}),
  }),
  /** GSI2: sessions and payments waiting for their expiry, present only while they can expire. */
  expiry: (id: string, expiresAt: string) => ({ GSI2PK: `EXPIRY#${shardOf(id)}`, GSI2SK: `${expiresAt}#${id}` }),
  expiryPartition: (shard: number) => `EXPIRY#${shard}`,
  /** GSI2: payouts in processing and refunds pending: money in flight, until the rail settles it. */
  settlement: (id: string, since: string) => ({ GSI2PK: `SETTLE#${shardOf(id)}`, GSI2SK: `${since}#${id}` }),
  settlementPartition: (shard: number) => `SETTLE#${shard}`,
  /**
   * GSI2: completed live payouts still watched for a return the provider may not tell us of, by when the
   * resume job should next read them back (not on the settlement partitions: they are not money in flight,
   * and the settlement-age alarm must not count them).
   */
  returnWatch: (id: string, checkAt: string) => ({ GSI2PK: `RETWATCH#${shardOf(id)}`, GSI2SK: `${checkAt}#${id}` }),
  returnWatchPartition: (shard: number) => `RETWATCH#${shard}`,
  /**
   * GSI2: live payments whose outcome a provider holds (awaitsProvider), by when the reconciliation job should
   * next read them back. They are not on the expiry partitions: the provider, read back, decides their expiry.
   */
  provider: (id: string, checkAt: string) => ({ GSI2PK: `PROVIDER#${shardOf(id)}`, GSI2SK: `${checkAt}#${id}` }),
  providerPartition: (shard: number) => `PROVIDER#${shard}`,
  /** GSI2: attempts abandoned by a failover, watched for a late success until their window ends (DESIGN.md 9.2). */
  attemptWatch: (reference: string, checkAt: string) => ({ GSI2PK: `ATTWATCH#${shardOf(reference)}`, GSI2SK: `${checkAt}#${reference}` }),
  attemptWatchPartition: (shard: number) => `ATTWATCH#${shard}`,
  /** A key that is never written: the health check reads it to prove the table answers. */
  healthProbe: () => ({ PK: 'HEALTH', SK: 'PROBE' }),
} as const;

/** The expression that takes an item off the work index (it no longer waits for a worker). */
export const REMOVE_FROM_WORK_INDEX = `REMOVE ${indexFor('work').partitionKey}, ${indexFor('work').sortKey}`;

const KEY_ATTRIBUTES: readonly string[] = [
  TABLE.partitionKey,
  TABLE.sortKey,
  ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  'entity',
  'version',
  TABLE.ttlAttribute,
];

/** Drops keys and envelope attributes from a stored item, leaving the domain object. */
export function stripKeys<T>(item: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) if (!KEY_ATTRIBUTES.includes(k) && !k.startsWith('_')) out[k] = v;
  return out as T;
}

/** `SET #f0 = :v0, ...` over a patch, with its names and values (prefix keeps several patches apart). */
export function setClause(fields: Record<string, unknown>, prefix = 'f') {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const assignments = Object.entries(fields).map(([k, v], i) => {
    names[`#${prefix}${i}`] = k;
    values[`:${prefix}${i}`] = v;
    return `#${prefix}${i} = :${prefix}${i}`;
  });
  return { set: assignments.join(', '), names, values };
}
