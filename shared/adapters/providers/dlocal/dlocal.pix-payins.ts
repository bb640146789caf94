/**
 * PIX pay-ins through dLocal (DESIGN.md 9.2: a third PIX rail beside the API Pix PSPs): a charge is a dLocal Pix
 * payment (PQ, DIRECT) created after the application committed its intent, under our order_id for the attempt
 * (dlocal.pix-payin-transformers.ts), with our dLocal notification route as notification_url; the shopper is shown the
 * BR Code of dLocal's answer. Read back by that order_id (GET /orders/{order_id}, then the payment by dLocal's id);
 * removed by dLocal's cancel of a pending payment; refunded through dLocal's refunds (dlocal.refunds.ts) by dLocal's
 * payment id, which the charge's details keep (`provider_payment_id`).
 *
 * What dLocal's answers mean here:
 * - a create that never left (connection refused, TLS, connect limit) is ProviderUnavailable with notSent; a 4xx
 *   dLocal documents as not processed (pixRefusalOf) is ProviderRejected with notProcessed: either may fail over;
 * - "Order ID is duplicated" (5009) means an earlier create got through: the payment is read back, never made twice;
 * - a read says not_found only on dLocal's "Payment not found" (code 4000); anything else it cannot read, an answer
 *   about another order, or an open payment without a BR Code is ProviderUnavailable (outcome unknown).
 */
import {
  heldLocalPaths,
  type PixCharge,
  type PixChargeState,
  type PixRail,
  type PixRefundConnector,
  ProviderRejected,
  ProviderUnavailable,
} from '../../../application/providers';
import { logger } from '../../../observability';
import { DLOCAL, type DlocalClient } from './dlocal.client';
import { dlocalRefunds } from './dlocal.refunds';
import { orderSchema, paymentSchema, type DlocalPayment } from './dlocal.schemas';
import { PIX_ORDER_ID } from './dlocal.pix-payin-schemas';
import { pixChargeStateOf, pixOrderIdOf, pixPayinBodyOf, pixRefusalOf, pixRejectionOf } from './dlocal.pix-payin-transformers';

/** dLocal's PIX pay-ins as one PIX rail: charges, their refunds (no callbacks: dLocal's notification route reads them back). */
export interface DlocalPixRail extends PixRail {
  readonly refunds: PixRefundConnector;
}

/** Our route of dLocal's notifications, under our public API's root (the pay-ins' one: notification_url of each charge). */
const notificationUrlOf = (callbackBaseUrl: string) => `${callbackBaseUrl.replace(/\/$/, '')}${heldLocalPaths(DLOCAL, '').notifications}`;

export function dlocalPixPayIns(client: DlocalClient, now: () => Date = () => new Date()): DlocalPixRail {
  const unavailable = (op: string, reason: string) => new ProviderUnavailable(DLOCAL, op, reason);

  /** dLocal's payment of one of our PIX order ids, or null when dLocal says it has none (4000). */
  async function read(orderId: string): Promise<DlocalPayment | null> {
    if (!PIX_ORDER_ID.test(orderId)) throw unavailable('order', 'not one of our PIX order ids');
    const o = await client.payins({ op: 'order', method: 'GET', path: `/orders/${orderId}`, schema: orderSchema, retry: true });
    if ('refused' in o) {
      if (o.refused.code === 4000) return null;
      throw unavailable('order', `dLocal refused the read-back (${o.refused.status})`);
    }
    if (o.ok.order_id !== orderId) throw unavailable('order', 'dLocal answered another order');
    const path = `/payments/${encodeURIComponent(o.ok.payment_id)}`;
    const p = await client.payins({ op: 'payment', method: 'GET', path, schema: paymentSchema, retry: true });
    if ('refused' in p) throw unavailable('payment', `dLocal refused the payment its order names (${p.refused.status})`);
    if (p.ok.id !== o.ok.payment_id || (p.ok.order_id !== undefined && p.ok.order_id !== orderId))
      throw unavailable('payment', 'dLocal answered another payment');
    return p.ok;
  }

  function stateOf(p: DlocalPayment, orderId: string, op: string): PixChargeState {
    const state = pixChargeStateOf(p, orderId, now());
    if (!state) throw unavailable(op, `dLocal's payment cannot be read as a PIX charge (${p.status}, no BR Code or another currency)`);
    return state;
  }

  async function getCharge(orderId: string): Promise<PixChargeState> {
    const p = await read(orderId);
    return p ? stateOf(p, orderId, 'payment') : { kind: 'not_found' };
  }

  async function createCharge(req: Parameters<DlocalPixRail['charges']['createCharge']>[0]): Promise<PixCharge> {
    const orderId = req.reference ?? pixOrderIdOf(req.paymentId);
    // Refused before any call: nothing is at dLocal, so another PSP may take it.
    if (!req.callbackBaseUrl) throw new ProviderRejected(DLOCAL, 'payments', 'invalid_request', 0, true);
    const b = pixPayinBodyOf(req, orderId, notificationUrlOf(req.callbackBaseUrl));
    if ('invalid' in b) throw new ProviderRejected(DLOCAL, 'payments', b.invalid, 0, true);
    const a = await client.payins({
      op: 'payments',
      method: 'POST',
      path: '/payments',
      schema: paymentSchema,
      body: b.body,
    });
    if ('refused' in a) {
      if (a.refused.code === 5009) {
        // An earlier create with this order_id got through (its answer was lost): the payment dLocal holds is the charge.
        const held = await getCharge(orderId);
        if (held.kind === 'open' || held.kind === 'paid') return held.charge;
        throw unavailable('payments', `dLocal reports the order as duplicated and holds it ${held.kind}`);
      }
      const r = pixRefusalOf(a.refused.status, a.refused.code);
      logger.warn('dLocal refused a PIX charge', {
        provider: DLOCAL,
        operation: 'payments',
        status: a.refused.status,
        dlocal_code: a.refused.code,
        code: r.code,
        not_processed: r.notProcessed,
      });
      throw new ProviderRejected(DLOCAL, 'payments', r.code, a.refused.status, r.notProcessed);
    }
    if (a.ok.order_id !== undefined && a.ok.order_id !== orderId) throw unavailable('payments', 'dLocal answered another order');
    // Rejected at once: dLocal made the payment and refused it (a decline, not "not processed").
    if (a.ok.status === 'REJECTED') throw new ProviderRejected(DLOCAL, 'payments', pixRejectionOf(a.ok), 200);
    const state = stateOf(a.ok, orderId, 'payments');
    if (state.kind === 'open' || state.kind === 'paid') return state.charge;
    throw unavailable('payments', `dLocal answered the create with ${a.ok.status}`);
  }

  async function removeCharge(orderId: string): Promise<PixChargeState> {
    const p = await read(orderId);
    if (!p) return { kind: 'not_found' };
    const before = stateOf(p, orderId, 'payment');
    if (before.kind !== 'open') return before;
    const path = `/payments/${encodeURIComponent(p.id)}/cancel`;
    const c = await client.payins({ op: 'cancel', method: 'POST', path, schema: paymentSchema });
    if ('ok' in c && c.ok.id === p.id && c.ok.status !== 'PENDING') return stateOf(c.ok, orderId, 'cancel');
    // Refused (5002: no longer pending, e.g. paid meanwhile) or still pending: what dLocal holds now decides.
    const after = await read(orderId);
    return after ? stateOf(after, orderId, 'payment') : { kind: 'not_found' };
  }

  const local = dlocalRefunds(client);
  const refunds: PixRefundConnector = {
    provider: local.provider,
    // dLocal documents no idempotency on POST /refunds: a lost answer is found by our order_refund_id, never resent.
    repeatable: false,
    // dLocal refunds by its payment id: the one the charge kept, else the received Pix's id (dLocal's payment id too).
    get: ({ endToEndId, refundId, providerPaymentId }) => local.get({ providerPaymentId: providerPaymentId ?? endToEndId, refundId }),
    async send({ endToEndId, refundId, amountMinor, providerPaymentId, callbackBaseUrl }) {
      if (!callbackBaseUrl) throw new ProviderUnavailable(DLOCAL, 'refunds', 'no notification route to give dLocal: nothing sent', true);
      return local.send({
        providerPaymentId: providerPaymentId ?? endToEndId,
        refundId,
        amountMinor,
        currency: 'BRL',
        notificationUrl: notificationUrlOf(callbackBaseUrl),
      });
    },
  };

  return {
    // dLocal's Pix page documents no expiry to ask for: the charge is cancelled when the payment expires here.
    charges: { provider: { name: DLOCAL, reference: pixOrderIdOf }, expiresWithPayment: true, createCharge, getCharge, removeCharge },
    refunds,
  };
}
