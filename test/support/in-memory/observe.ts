/**
 * What a merchant can observe in an in-memory world, for assertions: balances and ledger, stored and
 * published events, and the error a use case threw.
 */
import { AppError, type ErrorCode } from '../../../shared/domain/errors';
import type { MemoryWorld } from './deps.memory';

/** Available balance in minor units (0 when the balance item does not exist). */
export const balanceOf = (w: MemoryWorld, merchantId: string, currency = 'BRL', mode = 'test') =>
  w.table.balanceOf(merchantId, mode, currency);

/** Ledger entries of a merchant's balance, oldest first, as [reason, amount_minor, object_id]. */
export const ledgerOf = (w: MemoryWorld, merchantId: string, currency = 'BRL', mode = 'test') =>
  w.table.ledgerEntries({ merchant_id: merchantId, currency, mode }).map((e) => [e.reason, e.amount_minor, e.object_id] as const);

/** Sum of the ledger entries of one balance: must always equal the balance. */
export const ledgerSum = (w: MemoryWorld, merchantId: string, currency = 'BRL', mode = 'test') =>
  w.table.ledgerEntries({ merchant_id: merchantId, currency, mode }).reduce((sum, e) => sum + e.amount_minor, 0);

/** Published events as [type, object_id], in publish order (optionally of one object). */
export const publishedOf = (w: MemoryWorld, objectId?: string) =>
  w.publisher.events.filter((e) => objectId === undefined || e.object_id === objectId).map((e) => [e.type, e.object_id] as const);

/** The AppError code a promise rejected with; fails the test when it resolves or throws something else. */
export async function errorCode(p: Promise<unknown>): Promise<ErrorCode> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  throw new Error('expected an AppError, but the call succeeded');
}
