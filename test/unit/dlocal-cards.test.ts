/** dLocal cards on the wire and in our words: order ids per attempt, the request, the decline table, "not processed", chargebacks. */
import fc from 'fast-check';
import * as z from '../../shared/domain/zod';
import { applyDisputeSignal } from '../../shared/domain/payments/dispute';
import {
  cardOrderIdOf,
  cardOutcomeOf,
  cardPaymentRequestOf,
  cardDeclineOf,
  DLOCAL_CARD_DECLINES,
  DLOCAL_NOT_PROCESSED,
  notProcessed,
  parseCardOrderId,
  softDecline,
  type DlocalCardRequest,
} from '../../shared/adapters/providers/dlocal/dlocal.card-transformers';
import { cardPaymentRequestSchema, cardPaymentSchema, chargebackSchema } from '../../shared/adapters/providers/dlocal/dlocal.card-schemas';
import { chargebackNoticeOf, chargebackSignalOf, parseChargeback } from '../../shared/adapters/providers/dlocal/dlocal.chargebacks';
import { dlocalClient } from '../../shared/adapters/providers/dlocal/dlocal.client';
import { NoAnswer, type HttpAnswer, type ProviderHttp } from '../../shared/adapters/providers/http-client';
import { ProviderUnavailable } from '../../shared/application/providers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';

const pi = (bytes: Uint8Array) => `pi_${Buffer.from(bytes).toString('base64url')}`;
const PAYMENT = pi(new Uint8Array(16).fill(7));
const NUMBER = '4111111111111111';

const request = (over: Partial<DlocalCardRequest> = {}): DlocalCardRequest => ({
  paymentId: PAYMENT,
  amountMinor: 12_345,
  currency: 'BRL',
  country: 'BRA',
  card: { number: NUMBER, holder_name: 'Ana Souza', expiry_month: '03', expiry_year: '2031', cvv: '737' },
  installments: 1,
  shopper: { reference: 'mch_1-0123456789abcdef01234567', email: 'ana@example.com.br' },
  returnUrl: 'https://pay.example/providers/dlocal/return/pi_x',
  payer: { document: '530.333.155-50' },
  notificationUrl: 'https://pay.example/providers/dlocal/notifications',
  ...over,
});

describe('order ids per attempt', () => {
  it('attempt 1 is `dc` + 32 hex, later attempts add a<n>; each maps back to the payment and attempt', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.integer({ min: 1, max: 99 }), (bytes, attempt) => {
        const orderId = cardOrderIdOf(pi(bytes), attempt);
        expect(orderId).toMatch(attempt === 1 ? /^dc[0-9a-f]{32}$/ : new RegExp(`^dc[0-9a-f]{32}a${attempt}$`));
        expect(parseCardOrderId(orderId)).toEqual({ paymentId: pi(bytes), attempt });
      }),
    );
  });

  it('refuses what is not ours: a local pay-in order, attempt 0 or 1 spelled out, junk', () => {
    const base = cardOrderIdOf(PAYMENT);
    for (const bad of [`dp${base.slice(2)}`, `${base}a1`, `${base}a0`, `${base}a100`, 'dc123', ''])
      expect(parseCardOrderId(bad)).toBeNull();
    expect(() => cardOrderIdOf(PAYMENT, 0)).toThrow(RangeError);
  });
});

describe('the card payment request', () => {
  it('is CARD, DIRECT, capture true, our order_id and callback_url, dLocal’s field names and types; it passes our schema', () => {
    const body = cardPaymentRequestOf(request({ installments: 3 }), cardOrderIdOf(PAYMENT));
    expect(body).toEqual({
      amount: 123.45,
      currency: 'BRL',
      country: 'BR',
      payment_method_id: 'CARD',
      payment_method_flow: 'DIRECT',
      payer: { name: 'Ana Souza', email: 'ana@example.com.br', document: '53033315550', user_reference: 'mch_1-0123456789abcdef01234567' },
      card: {
        holder_name: 'Ana Souza',
        number: NUMBER,
        cvv: '737',
        expiration_month: 3,
        expiration_year: 2031,
        installments: '3',
        capture: true,
      },
      order_id: cardOrderIdOf(PAYMENT),
      notification_url: 'https://pay.example/providers/dlocal/notifications',
      callback_url: 'https://pay.example/providers/dlocal/return/pi_x',
    });
    expect(z.safeParse(cardPaymentRequestSchema, body).success).toBe(true);
  });

  it('one installment is not sent; CLP in whole pesos; without the payer’s document nothing is built', () => {
    const clp = cardPaymentRequestOf(request({ currency: 'CLP', country: 'CHL', amountMinor: 15_000 }), cardOrderIdOf(PAYMENT));
    expect(clp).toMatchObject({ amount: 15_000, currency: 'CLP', country: 'CL', card: { capture: true } });
    expect((clp as { card: object }).card).not.toHaveProperty('installments');
    const { payer: _payer, ...noPayer } = request();
    expect(cardPaymentRequestOf(noPayer, cardOrderIdOf(PAYMENT))).toEqual({ invalid: 'payer_document_required' });
  });

  it('our schema refuses what dLocal’s pages do not allow without ever repeating the card number', () => {
    const body = cardPaymentRequestOf(request(), cardOrderIdOf(PAYMENT)) as Record<string, unknown>;
    const bad = { ...body, card: { ...(body.card as object), number: `${NUMBER}x`, cvv: '12' }, extra: 1 };
    const r = z.safeParse(cardPaymentRequestSchema, bad);
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).not.toContain(NUMBER);
  });
});

describe('statuses and the decline table', () => {
  const payment = (status: string, extra: Record<string, unknown> = {}) =>
    z.parse(cardPaymentSchema, { id: 'D-4-abc', amount: 123.45, currency: 'BRL', status, ...extra });

  it('PAID approves; PENDING with a 3DS redirect_url redirects (GET); other PENDING, AUTHORIZED, VERIFIED wait', () => {
    expect(cardOutcomeOf(payment('PAID', { status_code: '200' }))).toEqual({
      kind: 'approved',
      authorizationCode: 'D-4-abc',
      pspReference: 'D-4-abc',
    });
    const url = 'https://sandbox.dlocal.com/three-ds/M-1';
    expect(cardOutcomeOf(payment('PENDING', { status_code: '101', three_dsecure: { redirect_url: url } }))).toEqual({
      kind: 'redirect',
      redirect: { url, method: 'GET', data: {} },
      pspReference: 'D-4-abc',
    });
    for (const s of ['PENDING', 'AUTHORIZED', 'VERIFIED'])
      expect(cardOutcomeOf(payment(s))).toEqual({ kind: 'pending', pspReference: 'D-4-abc' });
  });

  it('REJECTED maps each documented code; soft only where another acquirer may approve; unknown codes are hard', () => {
    expect(Object.keys(DLOCAL_CARD_DECLINES)).toEqual(Array.from({ length: 27 }, (_, i) => String(300 + i)));
    expect(
      Object.entries(DLOCAL_CARD_DECLINES)
        .filter(([, d]) => d.soft)
        .map(([c]) => c),
    ).toEqual(['316', '321']);
    expect(cardDeclineOf('302')).toEqual({ code: 'INSUFFICIENT_FUNDS', soft: false });
    expect(cardDeclineOf('309').code).toBe('EXPIRED_CARD');
    expect(cardDeclineOf('315').code).toBe('INCORRECT_CVC');
    expect(cardDeclineOf('320').code).toBe('AUTHENTICATION_FAILED');
    expect(cardDeclineOf('399')).toEqual({ code: 'CARD_DECLINED', soft: false });
    const soft = cardOutcomeOf(payment('REJECTED', { status_code: '321' }));
    expect(soft).toEqual({
      kind: 'declined',
      code: 'CARD_DECLINED',
      message: 'The card was declined.',
      providerCode: 'rejected_321',
      pspReference: 'D-4-abc',
      soft: true,
    });
    expect(softDecline(soft)).toBe(true);
    for (const hard of ['300', '301', '302', '303', '304', '310', '313', '314', '317']) {
      const o = cardOutcomeOf(payment('REJECTED', { status_code: hard }));
      expect(softDecline(o)).toBe(false);
      expect(o).not.toHaveProperty('soft');
    }
    expect(cardOutcomeOf(payment('CANCELLED'))).toMatchObject({ kind: 'declined', code: 'CARD_DECLINED', providerCode: 'cancelled' });
    expect(cardOutcomeOf(payment('REJECTED'))).toMatchObject({ providerCode: 'rejected_unknown' });
  });
});

describe('not processed', () => {
  it('the documented 400 refusals are; a duplicated order, a read’s not-found, credentials, rate limits and 5xx are not', () => {
    for (const c of [5000, 5001, 5003, 5004, 5005, 5006, 5007, 5010, 5013, 5014, 5016, 5021, 5043]) expect(notProcessed(c)).toBe(true);
    for (const c of [5009, 5002, 5018, 4000, 3001, 6000, 7000]) expect(notProcessed(c)).toBe(false);
    expect(notProcessed(5010, 504)).toBe(false); // "Request Timeout": outcome unknown
    expect(notProcessed(null)).toBe(false);
    expect(DLOCAL_NOT_PROCESSED[5014]).toEqual({ code: 'payer_not_allowed', payer: true });
  });
});

describe('chargebacks', () => {
  const cb = (status: string, over: Record<string, unknown> = {}) => ({
    id: 'CHAR42342',
    payment_id: 'D-4-abc',
    amount: 100.5,
    currency: 'BRL',
    status,
    status_code: 200,
    created_date: '2026-02-15T15:14:52-00:00',
    order_id: cardOrderIdOf(PAYMENT, 2),
    reason_code: '4837',
    ...over,
  });

  it('each status as a dispute signal: executed and in dispute withdraw, reversal wins, lost loses, notices move nothing', () => {
    expect(chargebackSignalOf('COMPLETED')).toBe('withdrawn');
    expect(chargebackSignalOf('IN_DISPUTE')).toBe('withdrawn');
    expect(chargebackSignalOf('REVERSAL')).toBe('won');
    expect(chargebackSignalOf('CANCELLED')).toBe('won');
    expect(chargebackSignalOf('DISPUTE_LOST')).toBe('lost');
    for (const s of ['PENDING', 'DISPUTE_RECEIVED', 'INQUIRY'] as const) expect(chargebackSignalOf(s)).toBeNull();
  });

  it('a notice names our payment and attempt, the amount in minor units and the scheme reason; other bodies are not chargebacks', () => {
    expect(parseChargeback(cb('COMPLETED'))).toEqual({
      notice: {
        signal: 'withdrawn',
        paymentId: PAYMENT,
        attempt: 2,
        providerPaymentId: 'D-4-abc',
        chargebackId: 'CHAR42342',
        amountMinor: 10_050,
        currency: 'BRL',
        reasonCode: '4837',
        at: '2026-02-15T15:14:52-00:00',
        status: 'COMPLETED',
      },
    });
    expect(parseChargeback(cb('INQUIRY'))).toEqual({ notice: null });
    expect(parseChargeback({ id: 'REF-1', payment_id: 'D-4-abc', status: 'SUCCESS', amount: 1, currency: 'BRL' })).toBeNull();
    expect(
      chargebackNoticeOf(z.parse(chargebackSchema, cb('COMPLETED', { order_id: 'merchant-123', currency: 'CLP', amount: 1500 }))),
    ).toMatchObject({ paymentId: null, attempt: null, amountMinor: 1500 });
  });

  it('replayed, duplicated and out-of-order notices settle the money once (dispute.ts)', () => {
    const notice = (status: string) => chargebackNoticeOf(z.parse(chargebackSchema, cb(status)))!;
    const at = (n: ReturnType<typeof notice>) => ({
      amountMinor: n.amountMinor,
      reasonCode: n.reasonCode,
      providerReference: n.chargebackId,
      at: n.at ?? '',
    });
    let d = null;
    let net = 0;
    for (const s of ['REVERSAL', 'COMPLETED', 'COMPLETED', 'IN_DISPUTE']) {
      const n = notice(s);
      const step = applyDisputeSignal(d, n.signal, at(n));
      if (step) {
        d = step.next;
        net += step.movements.reduce((sum, m) => sum + m.amountMinor, 0);
      }
    }
    expect(net).toBe(0);
    expect(d).toMatchObject({ status: 'won' });
  });
});

describe('the client: what certainly never left (a router may fail over) and what may have', () => {
  const cfg = parseProvidersConfig(
    { dlocal: { base_url: 'https://sandbox.dlocal.com', x_login: 'l', x_trans_key: 't', secret_key: 's' } },
    'test',
  ).dlocal as NonNullable<ReturnType<typeof parseProvidersConfig>['dlocal']>;
  const scripted = (...answers: Array<HttpAnswer | Error>): ProviderHttp => ({
    async send() {
      const a = answers.shift();
      if (!a || a instanceof Error) throw a ?? new Error('no scripted answer');
      return a;
    },
    close() {},
  });
  const create = { op: 'payments' as const, method: 'POST' as const, path: '/secure_payments', schema: cardPaymentSchema, body: {} };
  const read = { op: 'order' as const, method: 'GET' as const, path: '/orders/x', schema: cardPaymentSchema, retry: true };
  const notSent = (p: Promise<unknown>) =>
    p.then(
      () => 'answered',
      (e: unknown) => (e instanceof ProviderUnavailable ? e.notSent : 'other'),
    );

  it('a create refused before the connection is not sent; a timeout or a reset after it is unknown', async () => {
    const c = dlocalClient(cfg, scripted(new NoAnswer('connection refused', true), new NoAnswer('no answer within 10000 ms')));
    expect(await notSent(c.payins(create))).toBe(true);
    expect(await notSent(c.payins(create))).toBe(false);
  });

  it('a read retried after a 5xx or a timeout is never "not sent", even when the retry is refused before sending', async () => {
    const c = dlocalClient(
      cfg,
      scripted(
        { status: 503, headers: {}, text: '' },
        new NoAnswer('connection refused', true),
        new NoAnswer('no answer', false),
        new NoAnswer('connection refused', true),
        new NoAnswer('connection refused', true),
        new NoAnswer('connection refused', true),
      ),
    );
    expect(await notSent(c.payins(read))).toBe(false);
    expect(await notSent(c.payins(read))).toBe(false);
    expect(await notSent(c.payins(read))).toBe(true);
  });

  it('a payouts call whose token cannot be had never sent its request', async () => {
    const withPayouts = { ...cfg, payouts: { client_id: 'id', client_secret: 'secret' } };
    const c = dlocalClient(withPayouts, scripted(new NoAnswer('no answer within 10000 ms')));
    expect(await notSent(c.payouts({ op: 'payouts', method: 'POST', path: '/payouts/v3', schema: cardPaymentSchema, body: {} }))).toBe(
      true,
    );
  });
});
