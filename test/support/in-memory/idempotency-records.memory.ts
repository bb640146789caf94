/**
 * The idempotency records over a Map, with the DynamoDB adapter's conditions (shared/adapters/dynamodb/
 * idempotency.store.ts). An effect's transaction is modelled by `commitDone`: the done write applied under its
 * condition, as the store's transaction would.
 */
import type { ClaimOutcome, IdempotencyClaim, IdempotencyDone, IdempotencyRecords } from '../../../shared/application/ports';

export interface MemoryRecord {
  status: 'INPROGRESS' | 'COMPLETED' | 'REOPENED';
  token: string;
  validation: string;
  inProgressExpiry?: number;
  ttl: number;
  data?: Record<string, unknown>;
}

export class MemoryIdempotencyRecords implements IdempotencyRecords {
  readonly items = new Map<string, MemoryRecord>();

  async claim(op: Parameters<IdempotencyRecords['claim']>[0]): Promise<ClaimOutcome> {
    const r = this.items.get(op.recordId);
    const free =
      !r ||
      r.ttl < Math.floor(op.now / 1000) ||
      (r.validation === op.payloadHash && (r.status === 'REOPENED' || (r.status === 'INPROGRESS' && (r.inProgressExpiry ?? 0) < op.now)));
    if (free) {
      this.items.set(op.recordId, {
        status: 'INPROGRESS',
        token: op.token,
        validation: op.payloadHash,
        inProgressExpiry: op.inProgressUntil,
        ttl: op.expiresAt,
      });
      return { kind: 'claimed', claim: { recordId: op.recordId, token: op.token } };
    }
    if (r.validation !== op.payloadHash) return { kind: 'reused' };
    if (r.status === 'COMPLETED' && r.data) return { kind: 'completed', answer: structuredClone(r.data) };
    return { kind: 'in_progress' };
  }

  /** The done write of an effect's transaction; false (the transaction cancelled) when the claim is not ours. */
  commitDone(done: IdempotencyDone): boolean {
    if (!this.apply(done)) return false;
    done.committed();
    return true;
  }

  async finish(done: IdempotencyDone): Promise<boolean> {
    return this.apply(done);
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    const r = this.items.get(claim.recordId);
    if (!r || r.token !== claim.token) return;
    if (r.status === 'INPROGRESS') this.items.delete(claim.recordId);
    else if (r.status === 'COMPLETED')
      this.items.set(claim.recordId, { ...r, status: 'REOPENED', data: undefined, inProgressExpiry: undefined });
  }

  private apply(done: IdempotencyDone): boolean {
    const r = this.items.get(done.claim.recordId);
    if (!r || r.token !== done.claim.token) return false;
    this.items.set(done.claim.recordId, {
      ...r,
      status: 'COMPLETED',
      data: structuredClone(done.answer) as Record<string, unknown>,
      ttl: done.expiresAt,
      inProgressExpiry: undefined,
    });
    return true;
  }
}
