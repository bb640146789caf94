/**
 * PIX pay-ins through dLocal, between our charges and dLocal's wire: the order_id per attempt and back, the create's
 * body on our schema (what cannot be sent refused before any call), only a Pix BR Code taken as the code to show, a
 * payment read back as our charge state, dLocal's refusals in our words with whether they certainly made nothing, and
 * a notification naming a PIX charge told apart from a local payment's.
 */
import * as z from '../../shared/domain/zod';
import type { PixChargeRequest } from '../../shared/application/providers';
import { buildPixBrCode, crc16CcittFalse, isPixBrCode } from '../../shared/domain/payments/pix-brcode';
import { pixPayinRequestSchema } from '../../shared/adapters/providers/dlocal/dlocal.pix-payin-schemas';
import {
  brCodeOf,
  DEFAULT_OPEN_SECONDS,
  isoOf,
  paymentIdOfPixOrderId,
  pixChargeStateOf,
  pixOrderIdOf,
  pixPayinBodyOf,
  pixRefusalOf,
} from '../../shared/adapters/providers/dlocal/dlocal.pix-payin-transformers';
import { dlocalNotifications } from '../../shared/adapters/providers/dlocal/dlocal.notifications';
import { authorizationOf, signatureOf } from '../../shared/adapters/providers/dlocal/dlocal.signature';
import { orderIdOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import type { DlocalPayment } from '../../shared/adapters/providers/dlocal/dlocal.schemas';
import { dynamicBrCode } from '../support/fake-psp/brcode';

const pi = 'pi_AAECAwQFBgcICQoLDA0ODw';
const HEX = '000102030405060708090a0b0c0d0e0f';
const NOTIFY = 'https://api.example.com/providers/dlocal/notifications';
const CODE = dynamicBrCode('pix.dlocal.example/qr/v2/abc', '25.50');
const NOW = new Date('2026-05-24T14:40:00.000Z');

const charge = (over: Partial<PixChargeRequest> = {}): PixChargeRequest => ({
  paymentId: pi,
  amountMinor: 2550,
  merchantName: 'Loja',
  createdAt: '2026-05-24T14:32:11.000Z',
  expiresAt: '2026-05-24T15:02:11.000Z',
  debtor: { document: '52998224725', name: ' Ana Silva ' },
  description: 'Pedido 42',
  payerEmail: 'ana@example.com',
  ...over,
});

const payment = (over: Partial<DlocalPayment> = {}): DlocalPayment => ({
  id: 'D-4-75c7473a',
  amount: 25.5,
  currency: 'BRL',
  status: 'PENDING',
  status_code: '100',
  order_id: pixOrderIdOf(pi),
  created_date: '2026-05-24T14:32:11.000+0000',
  ticket: { qr_code: CODE, expiration_date: '2026-05-24T15:32:11.000+0000' },
  ...over,
});

describe('our order_id of a PIX charge', () => {
  it('is `dq` + the payment id’s 32 hex, with `a<n>` for a later attempt, and names the payment back', () => {
    expect(pixOrderIdOf(pi)).toBe(`dq${HEX}`);
    expect(pixOrderIdOf(pi, 2)).toBe(`dq${HEX}a2`);
    expect(pixOrderIdOf(pi, 12)).toBe(`dq${HEX}a12`);
    for (const attempt of [1, 2, 9, 12]) expect(paymentIdOfPixOrderId(pixOrderIdOf(pi, attempt))).toBe(pi);
    expect(() => pixOrderIdOf(pi, 0)).toThrow(RangeError);
    // A local payment's order (`dp`), a suffix we never make, or another merchant's id: not ours.
    for (const other of [orderIdOf(pi), `dq${HEX}a1`, `dq${HEX}a0`, `dq${HEX}b2`, '5346523564'])
      expect(paymentIdOfPixOrderId(other)).toBeNull();
  });
});

describe('the create', () => {
  it('is dLocal’s Pix (PQ) DIRECT in BRL for BR, with the payer, our order_id and notification route, on our schema', () => {
    const b = pixPayinBodyOf(charge(), pixOrderIdOf(pi, 2), NOTIFY);
    expect(b).toEqual({
      body: {
        amount: 25.5,
        currency: 'BRL',
        country: 'BR',
        payment_method_id: 'PQ',
        payment_method_flow: 'DIRECT',
        payer: { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' },
        order_id: `dq${HEX}a2`,
        description: 'Pedido 42',
        notification_url: NOTIFY,
      },
    });
    expect(z.safeParse(pixPayinRequestSchema, (b as { body: unknown }).body).success).toBe(true);
    const cnpj = pixPayinBodyOf(
      charge({ debtor: { document: '11.222.333/0001-81', name: 'Loja SA' }, description: null }),
      pixOrderIdOf(pi),
      NOTIFY,
    );
    expect(cnpj).toMatchObject({ body: { payer: { document: '11222333000181' } } });
    expect((cnpj as { body: object }).body).not.toHaveProperty('description');
  });

  it('without a CPF or CNPJ, or without an e-mail, is refused before any call', () => {
    expect(pixPayinBodyOf(charge({ debtor: undefined }), pixOrderIdOf(pi), NOTIFY)).toEqual({ invalid: 'payer_document_required' });
    expect(pixPayinBodyOf(charge({ debtor: { document: '1234', name: 'X' } }), pixOrderIdOf(pi), NOTIFY)).toEqual({
      invalid: 'payer_document_required',
    });
    expect(pixPayinBodyOf(charge({ payerEmail: undefined }), pixOrderIdOf(pi), NOTIFY)).toEqual({ invalid: 'payer_email_required' });
  });
});

describe('the code shown to the shopper', () => {
  it('is a Pix BR Code only: the Pix GUI, BRL, BR and a CRC that matches', () => {
    expect(isPixBrCode(CODE)).toBe(true);
    expect(isPixBrCode(buildPixBrCode({ pixKey: 'a@b.co', merchantName: 'Loja', merchantCity: 'Rio', amount: 1, txid: 'abc' }))).toBe(true);
    const body = CODE.slice(0, -4);
    expect(isPixBrCode(`${body}${crc16CcittFalse(body) === '0000' ? '0001' : '0000'}`)).toBe(false);
    // Another scheme's EMV QR (Bre-B's GUI in Colombia) with a good CRC, a ticket id, an image, a URL.
    const breb = CODE.replace('br.gov.bcb.pix', 'co.com.breb.qr').replace('5802BR', '5802CO').slice(0, -4);
    expect(isPixBrCode(breb + crc16CcittFalse(breb))).toBe(false);
    for (const other of ['QRS2-BTCN44FJ6HDQLB0DKKN2', 'iVBORw0KGgoAAAANSUhEUgAAAfQAAAH0', 'https://pix.example/qr/1', ''])
      expect(isPixBrCode(other)).toBe(false);
  });

  it('is read from the ticket’s qr_code, else its number; a ticket with neither as a BR Code has none', () => {
    expect(brCodeOf(payment())).toBe(CODE);
    expect(brCodeOf(payment({ ticket: { number: ` ${CODE} `, barcode: 'iVBORw0KGgo' } }))).toBe(CODE);
    expect(
      brCodeOf(payment({ ticket: { number: 'QRS2-BTCN44FJ6HDQLB0DKKN2', barcode: 'iVBORw0KGgo', image_url: 'https://x/y' } })),
    ).toBeNull();
    expect(brCodeOf(payment({ ticket: undefined }))).toBeNull();
  });
});

describe('a payment read back as our charge', () => {
  it('PENDING with its BR Code is open until the ticket’s expiry (or a day after creation when dLocal gives none)', () => {
    expect(pixChargeStateOf(payment(), pixOrderIdOf(pi), NOW)).toEqual({
      kind: 'open',
      charge: { pixCode: CODE, txid: pixOrderIdOf(pi), details: { provider_payment_id: 'D-4-75c7473a' } },
      expiresAt: '2026-05-24T15:32:11.000Z',
    });
    const noExpiry = pixChargeStateOf(payment({ ticket: { qr_code: CODE } }), pixOrderIdOf(pi), NOW);
    expect(noExpiry).toMatchObject({
      kind: 'open',
      expiresAt: new Date(Date.parse('2026-05-24T14:32:11Z') + DEFAULT_OPEN_SECONDS * 1000).toISOString(),
    });
    // Open without a code to show (or in another currency, or a card state): not a state we can act on.
    expect(pixChargeStateOf(payment({ ticket: { number: 'QRS2-1' } }), pixOrderIdOf(pi), NOW)).toBeNull();
    expect(pixChargeStateOf(payment({ currency: 'USD' }), pixOrderIdOf(pi), NOW)).toBeNull();
    expect(pixChargeStateOf(payment({ status: 'AUTHORIZED' }), pixOrderIdOf(pi), NOW)).toBeNull();
  });

  it('PAID is one received Pix named by dLocal’s payment id (no end-to-end id is given), with the amount dLocal reports', () => {
    const paid = pixChargeStateOf(
      payment({ status: 'PAID', status_code: '200', amount: 25.49, approved_date: '2026-05-24T14:35:00.000+0000', ticket: undefined }),
      pixOrderIdOf(pi, 2),
      NOW,
    );
    expect(paid).toEqual({
      kind: 'paid',
      charge: { pixCode: '', txid: pixOrderIdOf(pi, 2), details: { provider_payment_id: 'D-4-75c7473a' } },
      received: [
        {
          endToEndId: 'D-4-75c7473a',
          amountMinor: 2549,
          paidAt: '2026-05-24T14:35:00.000Z',
          refunds: [],
          fraudReturns: [],
          providerPaymentId: 'D-4-75c7473a',
        },
      ],
    });
  });

  it('REJECTED, CANCELLED and EXPIRED are removed with nothing received', () => {
    for (const status of ['REJECTED', 'CANCELLED', 'EXPIRED'] as const)
      expect(pixChargeStateOf(payment({ status }), pixOrderIdOf(pi), NOW)).toEqual({ kind: 'removed', received: [] });
  });

  it('reads dLocal’s dates with a +0000 offset, and nothing else as a date', () => {
    expect(isoOf('2020-11-16T20:37:20.000+0000')).toBe('2020-11-16T20:37:20.000Z');
    expect(isoOf('2020-11-16T17:37:20.000-0300')).toBe('2020-11-16T20:37:20.000Z');
    expect(isoOf('2020-11-16T20:37:20Z')).toBe('2020-11-16T20:37:20.000Z');
    expect(isoOf('soon')).toBeNull();
    expect(isoOf(undefined)).toBeNull();
  });
});

describe('dLocal’s refusals of a create', () => {
  it('a documented not-processed code may go to another PSP; one about the payer, a duplicate or an unlisted one may not', () => {
    expect(pixRefusalOf(400, 5007)).toEqual({ code: 'limit_exceeded', notProcessed: true });
    expect(pixRefusalOf(400, 5010)).toEqual({ code: 'method_not_available', notProcessed: true });
    expect(pixRefusalOf(400, 5001)).toEqual({ code: 'invalid_request', notProcessed: true });
    expect(pixRefusalOf(400, 5014)).toEqual({ code: 'payer_not_allowed', notProcessed: false });
    // About the payer: blacklisted, cadastral situation, the payer's own limit.
    for (const code of [5014, 5005, 5006]) expect(pixRefusalOf(400, code).notProcessed).toBe(false);
    // 5009 is read back (never refused), 5002 is about an existing payment, 5010 as a 504 is a timeout, no code is unknown.
    for (const [status, code] of [
      [400, 5009],
      [400, 5002],
      [504, 5010],
      [400, null],
    ] as const)
      expect(pixRefusalOf(status, code).notProcessed).toBe(false);
  });
});

describe('a notification naming a PIX charge', () => {
  const cfg = { x_login: 'merchant-login', secret_key: 'merchant-secret' };
  const n = dlocalNotifications(cfg);
  const signed = (body: string) => {
    const xDate = '2026-11-25T12:00:00.000Z';
    return { 'x-date': xDate, authorization: authorizationOf(signatureOf(cfg.secret_key, cfg.x_login, xDate, body)) };
  };

  it('is verified first, then names the charge by its order_id as sent (with the attempt) and our payment', () => {
    const body = JSON.stringify({ id: 'D-4-9', amount: 25.5, currency: 'BRL', status: 'PAID', order_id: pixOrderIdOf(pi, 2) });
    expect(n.parse(signed(body), body)).toEqual({
      item: { kind: 'pix', reference: pixOrderIdOf(pi, 2), paymentId: pi, providerPaymentId: 'D-4-9', claimed: 'PAID' },
    });
    expect(n.parse({}, body)).toEqual({ forged: true });
    // A local payment's stays a local payment's; a refund of a PIX charge names its payment by the order_id too.
    const local = JSON.stringify({ id: 'D-4-1', amount: 10, currency: 'BRL', status: 'PAID', order_id: orderIdOf(pi) });
    expect(n.parse(signed(local), local)).toMatchObject({ item: { kind: 'payment', paymentId: pi } });
    const refund = JSON.stringify({ id: 'REF-1', payment_id: 'D-4-9', status: 'SUCCESS', order_id: pixOrderIdOf(pi) });
    expect(n.parse(signed(refund), refund)).toMatchObject({ item: { kind: 'refund', paymentId: pi, providerPaymentId: 'D-4-9' } });
  });
});
