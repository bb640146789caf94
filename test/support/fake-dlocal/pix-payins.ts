/**
 * The fake dLocal's Brazilian Pix pay-ins (PQ, DIRECT: dlocal.pix-payin-schemas.ts), kept apart from index.ts and
 * state.ts and hooked into them by a few lines:
 * - a create (POST /payments with payment_method_id PQ) is checked against OUR schema of the Pix request; a mismatch
 *   is a violation answered as dLocal answers a bad parameter (400 5001); a payer document whose check digits fail is
 *   answered the same way (the payer's, not ours: no violation); a second create of one order_id is 5009;
 * - payments are kept in the state's maps beside the other APMs, so the order and payment reads, refunds,
 *   setStatus, notify, failNext / hang / dropAfter and refused connections are theirs; an open one answers its ticket
 *   with the BR Code in `qr_code` (a dynamic BR Code with a valid CRC) and its `expiration_date`;
 * - POST /payments/{id}/cancel cancels a pending APM payment ("Cancel pending payment"); anything else is 5002;
 * - pay, reject and expire it on demand, each posting its signed notification as the other payments' do.
 */
import { validateDocument } from '../../../shared/domain/documents';
import { pixPayinRequestSchema } from '../../../shared/adapters/providers/dlocal/dlocal.pix-payin-schemas';
import type { PaymentStatus } from '../../../shared/adapters/providers/dlocal/dlocal.schemas';
import { randomUUID } from 'node:crypto';
import { dynamicBrCode } from '../fake-psp/brcode';
import { DlocalError, type DlocalState, type FakeDlocalOp, type FakePayment } from './state';

/** A create the Pix path takes: payment_method_id PQ (the other APMs go to the state's own create). */
export const isPixPayinBody = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && (body as { payment_method_id?: unknown }).payment_method_id === 'PQ';

interface Answer {
  readonly status: number;
  readonly body: string;
}

export class FakePixPayIns {
  /** How long an open Pix is payable (dLocal's page gives no figure: an hour here). */
  lifetimeSeconds = 3600;

  constructor(
    private readonly state: DlocalState,
    private readonly origin: () => string,
    private readonly post: (url: string, object: unknown) => Promise<Answer>,
  ) {
    state.tickets.pix = (p) => this.ticket(p);
  }

  /** An open Pix's ticket: the BR Code in qr_code, its expiry, an image of it (as the Bre-B QR's ticket is laid out). */
  ticket(p: FakePayment): Record<string, unknown> {
    const host = new URL(this.origin()).host;
    return {
      type: 'CUSTOM',
      qr_code: dynamicBrCode(
        `${host}/pix/v2/${p.id.replace(/[^A-Za-z0-9]/g, '').slice(-25)}`,
        p.request.amount.toFixed(2),
        'DLOCAL BRASIL',
        'SAO PAULO',
      ),
      expiration_date: p.qrExpirationDate,
      id: `PQ-${p.id.slice(-8)}`,
      image_url: `${this.origin()}/qr/${p.id}.png`,
      provider_name: 'pix',
      company_name: 'DLOCAL BRASIL LTDA',
    };
  }

  create(body: unknown): Record<string, unknown> {
    const s = this.state;
    const r = s.check('POST /payments (BR, Pix)', pixPayinRequestSchema, body);
    const type = r.payer.document.length === 11 ? 'CPF' : 'CNPJ';
    if (!validateDocument(type, r.payer.document).valid) throw new DlocalError(400, 5001, 'Invalid parameter', 'payer.document');
    s.creates.set(r.order_id, (s.creates.get(r.order_id) ?? 0) + 1);
    if (s.byOrderId.has(r.order_id)) throw new DlocalError(400, 5009, 'Order ID is duplicated.');
    const script = s.scripts.shift();
    if (script && 'refuse' in script) throw new DlocalError(script.httpStatus ?? 400, script.refuse, 'Scripted refusal');
    const now = Date.now();
    const p: FakePayment = {
      id: `D-4-${randomUUID()}`,
      request: r,
      status: script ? script.status : 'PENDING',
      statusCode: script ? script.statusCode : '100',
      createdDate: new Date(now).toISOString(),
      expirationDate: new Date(now + this.lifetimeSeconds * 1000).toISOString(),
      qrExpirationDate: new Date(now + this.lifetimeSeconds * 1000).toISOString(),
    };
    s.payments.set(p.id, p);
    s.byOrderId.set(r.order_id, p);
    return s.paymentObject(p);
  }

  /** The Pix routes (a PQ create, the cancel of a pending APM payment), or null for the others to answer. */
  route(op: FakeDlocalOp, path: string, body: unknown): [number, unknown] | null {
    if (op === 'payments' && isPixPayinBody(body)) return [200, this.create(body)];
    if (op !== 'cancel') return null;
    const p = this.state.payments.get(decodeURIComponent(path.split('/')[2] ?? ''));
    if (!p) return null; // a card payment's (cards.ts), or dLocal's 404
    if (p.status !== 'PENDING') throw new DlocalError(400, 5002, 'Invalid transaction status.');
    this.state.setStatus(p.request.order_id, 'CANCELLED');
    return [200, this.state.paymentObject(p)];
  }

  /** The open Pix's BR Code, or null. */
  code(orderId: string): string | null {
    const p = this.state.byOrderId.get(orderId);
    return p?.status === 'PENDING' ? ((this.ticket(p).qr_code as string | undefined) ?? null) : null;
  }

  /** The payer pays (another amount, when given); dLocal posts the notification unless `notify` is false. */
  pay(orderId: string, o: { amount?: number; notify?: boolean } = {}): Promise<Answer | null> {
    const p = this.state.byOrderId.get(orderId);
    if (!p) throw new Error(`fake dLocal: no Pix payment for ${orderId}`);
    if (o.amount !== undefined) p.paidAmount = o.amount;
    return this.settle(orderId, 'PAID', undefined, o.notify);
  }

  /** dLocal rejects it (status_code 300 or the one given), or the Pix expires unpaid. */
  reject = (orderId: string, statusCode = '300', notify?: boolean) => this.settle(orderId, 'REJECTED', statusCode, notify);
  expire = (orderId: string, notify?: boolean) => this.settle(orderId, 'EXPIRED', undefined, notify);

  private async settle(orderId: string, status: PaymentStatus, statusCode: string | undefined, notify = true): Promise<Answer | null> {
    const p = this.state.setStatus(orderId, status, statusCode);
    return notify ? this.post(p.request.notification_url, this.state.paymentObject(p)) : null;
  }
}
