/**
 * The fake dLocal's chargebacks (hooked into index.ts): a chargeback opened on a paid card payment, moved through
 * dLocal's statuses (reference/chargeback-status), answered at GET /chargebacks/{id} (the whole object, or with
 * `minimalReads` only id and status, as dLocal's older page shows), and posted signed to the merchant's chargeback
 * notification URL, which dLocal keeps per merchant (set with `setUrl`, as a merchant registers it with dLocal; a
 * card payment request carries no such field). A notice can be sent once, twice, stale (an earlier status) or
 * forged; without a URL nothing is sent.
 */
import { randomUUID } from 'node:crypto';
import { DlocalError } from './state';
import type { ChargebackStatus } from '../../../shared/adapters/providers/dlocal/dlocal.card-schemas';
import type { FakeCards } from './cards';

export const CHARGEBACK_CODES: Readonly<Record<ChargebackStatus, number>> = {
  PENDING: 100,
  DISPUTE_RECEIVED: 101,
  COMPLETED: 200,
  IN_DISPUTE: 201,
  DISPUTE_LOST: 202,
  CANCELLED: 400,
  REVERSAL: 700,
  INQUIRY: 800,
};

export interface FakeChargeback {
  readonly id: string;
  readonly paymentId: string;
  readonly orderId: string;
  amount: number;
  currency: string;
  status: ChargebackStatus;
  readonly createdDate: string;
}

type Post = (url: string, object: unknown, sign?: 'good' | 'forged' | 'none') => Promise<{ status: number; body: string }>;

export class FakeChargebacks {
  readonly chargebacks = new Map<string, FakeChargeback>();
  /** The merchant's chargeback notification URL as registered with dLocal (null: none, nothing is sent). */
  url: string | null = null;
  /** GET /chargebacks/{id} answers only id, status, status_code and status_detail (dLocal's older page). */
  minimalReads = false;

  constructor(
    private readonly cards: FakeCards,
    private readonly post: Post,
  ) {}

  setUrl(url: string | null): void {
    this.url = url;
  }

  /** A chargeback on a PAID card payment of this order_id (by default its whole amount, COMPLETED). */
  open(orderId: string, o: { amount?: number; currency?: string; status?: ChargebackStatus } = {}): FakeChargeback {
    const p = this.cards.byOrderId.get(orderId);
    if (!p || p.status !== 'PAID') throw new Error(`fake dLocal: no paid card payment for ${orderId}`);
    const c: FakeChargeback = {
      id: `CHAR-${randomUUID()}`,
      paymentId: p.id,
      orderId,
      amount: o.amount ?? p.request.amount,
      currency: o.currency ?? p.request.currency,
      status: o.status ?? 'COMPLETED',
      createdDate: new Date().toISOString(),
    };
    this.chargebacks.set(c.id, c);
    return c;
  }

  setStatus(id: string, status: ChargebackStatus): FakeChargeback {
    const c = this.get(id);
    c.status = status;
    return c;
  }

  object(c: FakeChargeback, status: ChargebackStatus = c.status): Record<string, unknown> {
    return {
      id: c.id,
      payment_id: c.paymentId,
      amount: c.amount,
      currency: c.currency,
      status,
      status_code: CHARGEBACK_CODES[status],
      status_detail: `The chargeback is ${status.toLowerCase()}.`,
      created_date: c.createdDate,
      ...(this.url ? { notification_url: this.url } : {}),
      order_id: c.orderId,
    };
  }

  /** GET /chargebacks/{id}, or null for a request that is not about a chargeback. */
  route(op: string, path: string): [number, unknown] | null {
    if (op !== 'chargeback') return null;
    const c = this.chargebacks.get(decodeURIComponent(path.split('/')[2] ?? ''));
    if (!c) throw new DlocalError(404, 4000, 'Chargeback not found.');
    const o = this.object(c);
    return [200, this.minimalReads ? { id: o.id, status: o.status, status_code: o.status_code, status_detail: o.status_detail } : o];
  }

  /**
   * Posts the chargeback object (as it is now, or with `status` for a stale, out-of-order copy, or with `over` fields)
   * to the registered URL, signed per `sign`. Calling it twice is a duplicate.
   */
  async notify(
    id: string,
    o: { sign?: 'good' | 'forged' | 'none'; status?: ChargebackStatus; over?: Record<string, unknown> } = {},
  ): Promise<{ status: number; body: string } | null> {
    const c = this.get(id);
    if (!this.url) return null;
    return this.post(this.url, { ...this.object(c, o.status), ...o.over }, o.sign);
  }

  private get(id: string): FakeChargeback {
    const c = this.chargebacks.get(id);
    if (!c) throw new Error(`fake dLocal: no chargeback ${id}`);
    return c;
  }
}
