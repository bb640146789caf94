/**
 * Card payments through dLocal (DESIGN.md 9.2: a second card provider beside Adyen), as a HeldCardConnector:
 * - authorize: POST /secure_payments (the card's own data; dLocal's /payments takes only tokens), CARD, DIRECT,
 *   capture true, our order_id per attempt (`dc` + 32 hex, then `a2`, `a3`...), callback_url for 3-D Secure. The
 *   answer is PAID (approved), REJECTED with a status_code (declined through DLOCAL_CARD_DECLINES), PENDING 101 with
 *   `three_dsecure.redirect_url` (the shopper authenticates there, then comes back to our callback_url) or another
 *   PENDING (the notification or the job decides). A 4xx is thrown as DlocalCardRefused (a ProviderRejected saying
 *   whether dLocal documents it as not processed); 5009 "Order ID is duplicated" means an earlier send got through,
 *   so the payment is read back instead. No answer, a 5xx or a 429 is ProviderUnavailable (outcome unknown).
 * - readBack: GET /orders/{order_id} (reference/the-order-object: dLocal does read by our order id), then
 *   GET /payments/{payment_id} for the whole payment. `not_found` only on dLocal's own documented "Payment not found"
 *   (HTTP 404 with code 4000): anything else is ProviderUnavailable, never a guess. dLocal's pages say nothing of how
 *   soon a created payment can be read by its order: a router should read back after the create's time limit.
 * - completeRedirect: dLocal's return to the callback_url carries only its payment id, a status and a signature,
 *   and its page says not to take the status from it: the payment is read back by our order_id; the token is unused.
 * - cancelByReference: dLocal documents POST /payments/{payment_id}/cancel for an uncaptured card payment (AUTHORIZED).
 *   We capture at once, so what may be open is a PENDING payment (3-D Secure not finished), which is uncaptured too:
 *   it is asked to cancel, and if dLocal will not (5002 "Invalid transaction status") it is read again. It returns
 *   only when dLocal holds nothing that can still collect money (none, rejected, cancelled, expired); a PENDING
 *   payment dLocal keeps is ProviderUnavailable (asked again later). A PAID payment cannot be cancelled: it throws
 *   ProviderRejected `paid_refund_required`, and is refunded through dLocal's refunds (dlocal.refunds.ts, by the
 *   caller), never marked failed.
 * The card's number and CVV go only into the request body sent to dLocal: never into a log line, a stored field or
 * an error (errors carry our codes and dLocal's numeric codes only).
 */
import { type HeldCardConnector, type HeldCardOutcome, ProviderRejected, ProviderUnavailable } from '../../../application/providers';
import { logger } from '../../../observability';
import type { DlocalConfig } from '../providers.config';
import { DLOCAL, dlocalClient, type DlocalAnswer, type DlocalClient } from './dlocal.client';
import { CARD_ORDER_ID, cardOrderSchema, cardPaymentSchema, type DlocalCardPayment } from './dlocal.card-schemas';
import {
  cardOrderIdOf,
  cardOutcomeOf,
  cardPaymentRequestOf,
  DLOCAL_NOT_PROCESSED,
  notProcessed,
  parseCardOrderId,
  type DlocalCardRequest,
} from './dlocal.card-transformers';
import { refusalCodeOf } from './dlocal.transformers';

export type { DlocalCardRequest } from './dlocal.card-transformers';

/**
 * dLocal refused a card call (its 4xx), or we refused to send it: `code` is ours; `dlocalCode` dLocal's number
 * (null when nothing was sent); `notProcessed` whether dLocal documents the refusal as nothing created (or nothing
 * was sent); `payerRefusal` whether it is about the payer (cadastral situation, limit, blacklist), which another
 * provider should not be asked to override.
 */
export class DlocalCardRefused extends ProviderRejected {
  constructor(
    operation: string,
    code: string,
    status: number,
    readonly dlocalCode: number | null,
    notProcessed: boolean,
    payerRefusal: boolean,
  ) {
    super(DLOCAL, operation, code, status, notProcessed, payerRefusal);
    this.name = 'DlocalCardRefused';
  }
}

/** A read-back: the attempt's outcome at dLocal, or dLocal's documented "not found" for its order_id. */
export type DlocalCardReadBack = HeldCardOutcome | { readonly kind: 'not_found' };

export interface DlocalCardConnector extends HeldCardConnector {
  authorize(req: DlocalCardRequest): Promise<HeldCardOutcome>;
  /** The attempt's payment read back by its order_id (default attempt 1's, `provider.reference(paymentId)`). */
  readBack(paymentId: string, opts?: { reference?: string }): Promise<DlocalCardReadBack>;
}

type Refusal = Extract<DlocalAnswer<unknown>, { refused: unknown }>['refused'];

function refused(op: string, r: Refusal): DlocalCardRefused {
  const documented = r.code === null ? undefined : DLOCAL_NOT_PROCESSED[r.code];
  const code = documented?.code ?? refusalCodeOf(r.code);
  logger.warn('dLocal refused a card call', { provider: DLOCAL, operation: op, status: r.status, dlocal_code: r.code, code });
  return new DlocalCardRefused(op, code, r.status, r.code, notProcessed(r.code, r.status), documented?.payer ?? false);
}

/** dLocal's documented "Payment not found": HTTP 404 with its code 4000 (reference/http-errors-payments). */
const isNotFound = (r: Refusal) => r.status === 404 && r.code === 4000;

export interface DlocalCardOptions {
  /** Seconds an open card payment waits for dLocal's outcome before the job cancels it by reference (default 900). */
  readonly cancelAfterSeconds?: number;
}

export function dlocalCards(
  cfg: DlocalConfig,
  client: DlocalClient = dlocalClient(cfg),
  opts: DlocalCardOptions = {},
): DlocalCardConnector {
  const orderIdFor = (paymentId: string, reference: string | undefined) => {
    const orderId = reference ?? cardOrderIdOf(paymentId);
    // An explicit reference must be one of this payment's attempts: never another payment's order.
    if (!CARD_ORDER_ID.test(orderId) || parseCardOrderId(orderId)?.paymentId !== paymentId)
      throw new ProviderRejected(DLOCAL, 'payments', 'invalid_reference', 0);
    return orderId;
  };

  /** The payment dLocal holds for an order_id, or null on its documented not-found. */
  async function paymentOf(orderId: string): Promise<DlocalCardPayment | null> {
    const o = await client.payins({ op: 'order', method: 'GET', path: `/orders/${orderId}`, schema: cardOrderSchema, retry: true });
    if ('refused' in o) {
      if (isNotFound(o.refused)) return null;
      throw new ProviderUnavailable(DLOCAL, 'order', `dLocal refused the read-back (${o.refused.status})`);
    }
    if (o.ok.order_id !== orderId) throw new ProviderUnavailable(DLOCAL, 'order', 'dLocal answered another order');
    const p = await client.payins({
      op: 'payment',
      method: 'GET',
      path: `/payments/${encodeURIComponent(o.ok.payment_id)}`,
      schema: cardPaymentSchema,
      retry: true,
    });
    // The order named this payment: a payment that cannot be read now is no answer, not an absence.
    if ('refused' in p) throw new ProviderUnavailable(DLOCAL, 'payment', `dLocal refused the payment read (${p.refused.status})`);
    if (p.ok.order_id !== undefined && p.ok.order_id !== orderId)
      throw new ProviderUnavailable(DLOCAL, 'payment', 'dLocal answered a payment of another order');
    return p.ok;
  }

  async function readBack(paymentId: string, o: { reference?: string } = {}): Promise<DlocalCardReadBack> {
    const p = await paymentOf(orderIdFor(paymentId, o.reference));
    return p ? cardOutcomeOf(p) : { kind: 'not_found' };
  }

  /** Nothing dLocal holds can still collect money; PAID is refused (refund it); an open payment is asked again. */
  function settledForCancel(p: DlocalCardPayment | null): boolean {
    if (!p) return true;
    if (p.status === 'PAID') throw new ProviderRejected(DLOCAL, 'cancel', 'paid_refund_required', 0);
    return p.status !== 'PENDING' && p.status !== 'AUTHORIZED';
  }

  return {
    provider: { name: DLOCAL, reference: (paymentId: string, attempt?: number) => cardOrderIdOf(paymentId, attempt) },
    cancelAfterSeconds: opts.cancelAfterSeconds ?? 900,
    // dLocal's 3-D Secure page is a plain GET of its redirect_url: the shopper is sent there, not through a page of ours.
    redirectsDirectly: true,
    async authorize(req) {
      const orderId = orderIdFor(req.paymentId, req.reference);
      const body = cardPaymentRequestOf(req, orderId);
      // Refused before any call (nothing sent, so nothing created at dLocal).
      if ('invalid' in body) throw new DlocalCardRefused('payments', body.invalid, 0, null, true, false);
      const a = await client.payins({ op: 'payments', method: 'POST', path: '/secure_payments', schema: cardPaymentSchema, body });
      if ('refused' in a) {
        if (a.refused.code === 5009) {
          // An earlier send of this attempt got through (its answer was lost): its payment is the answer.
          const back = await readBack(req.paymentId, { reference: orderId });
          if (back.kind !== 'not_found') return back;
          throw new ProviderUnavailable(DLOCAL, 'payments', 'dLocal reports the order as duplicated but has no payment for it');
        }
        throw refused('payments', a.refused);
      }
      if (a.ok.order_id !== undefined && a.ok.order_id !== orderId)
        throw new ProviderUnavailable(DLOCAL, 'payments', 'dLocal answered another order');
      return cardOutcomeOf(a.ok);
    },
    async completeRedirect({ paymentId, reference }) {
      const back = await readBack(paymentId, reference === undefined ? {} : { reference });
      if (back.kind === 'not_found') throw new ProviderUnavailable(DLOCAL, 'order', 'dLocal has no payment for our order after 3-D Secure');
      return back;
    },
    readBack,
    async cancelByReference(paymentId, o = {}) {
      const orderId = orderIdFor(paymentId, o.reference);
      const p = await paymentOf(orderId);
      if (settledForCancel(p)) return;
      const id = (p as DlocalCardPayment).id;
      const c = await client.payins({
        op: 'cancel',
        method: 'POST',
        path: `/payments/${encodeURIComponent(id)}/cancel`,
        schema: cardPaymentSchema,
      });
      if ('refused' in c) {
        // 5002 "Invalid transaction status": dLocal would not cancel it as it is now; what it is now decides.
        if (c.refused.code !== 5002) throw refused('cancel', c.refused);
        if (settledForCancel(await paymentOf(orderId))) return;
        throw new ProviderUnavailable(DLOCAL, 'cancel', 'dLocal keeps the payment open and would not cancel it');
      }
      if (c.ok.id !== id) throw new ProviderUnavailable(DLOCAL, 'cancel', 'dLocal answered another payment');
      if (!settledForCancel(c.ok)) throw new ProviderUnavailable(DLOCAL, 'cancel', `dLocal answered the cancel with ${c.ok.status}`);
    },
  };
}
