/** Refund: its own item, listed per payment on the listing index (GSI1), oldest first by created_at. */
import type { Refund, RefundStatus } from '../../../domain/refunds/refund';
import { envelope, indexKeys, type EntityModel } from '../keys';
import type { TaggedWrite } from '../transact';
import { putNew, statusMove } from './writes';

const model = { entity: 'refund', version: 1 } as const;
const key = (refundId: string) => ({ PK: `REFUND#${refundId}`, SK: 'REFUND' });
/** Listing index: one payment's refunds. */
const ofPayment = (paymentId: string, createdAt?: string, refundId?: string) => ({
  GSI1PK: `PAYMENT#${paymentId}#REFUNDS`,
  ...(createdAt && refundId ? { GSI1SK: `${createdAt}#${refundId}` } : {}),
});

export const refundEntity = {
  ...model,
  key,
  ofPayment,
  item: (r: Refund) => ({
    ...key(r.refund_id),
    ...ofPayment(r.payment_id, r.created_at, r.refund_id),
    ...(r.status === 'pending' ? indexKeys.settlement(r.refund_id, r.created_at) : {}),
    ...envelope(model),
    ...r,
  }),
  create: (tableName: string, r: Refund): TaggedWrite => putNew('refund', tableName, refundEntity.item(r)),
  /** pending -> succeeded | failed, conditional on the status read; it leaves the settlement work index. */
  transition: (tableName: string, r: Refund, to: RefundStatus, patch: Partial<Refund>, now: string): TaggedWrite =>
    statusMove('refund', tableName, key(r.refund_id), r.status, { ...patch, status: to, updated_at: now }, true),
} as const satisfies EntityModel;
