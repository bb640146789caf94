/** dLocal's notifications in our words: checked before read, then only which object to read back (never a status to apply). */
import { dlocalNotifications } from '../../shared/adapters/providers/dlocal/dlocal.notifications';
import { authorizationOf, signatureOf } from '../../shared/adapters/providers/dlocal/dlocal.signature';
import { externalIdOf, orderIdOf, refundReferenceOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { cardOrderIdOf } from '../../shared/adapters/providers/dlocal/dlocal.card-transformers';

const cfg = { x_login: 'merchant-login', secret_key: 'merchant-secret' };
const n = dlocalNotifications(cfg);
const signed = (body: string, secret = cfg.secret_key) => {
  const xDate = '2026-11-25T12:00:00.000Z';
  return { 'x-date': xDate, authorization: authorizationOf(signatureOf(secret, cfg.x_login, xDate, body)) };
};
const pi = 'pi_AAECAwQFBgcICQoLDA0ODw';

describe('pay-in notifications', () => {
  it('a payment names our payment (from its order_id) and dLocal’s id; a foreign order_id names none', () => {
    const body = JSON.stringify({ id: 'D-4-1', amount: 10, currency: 'PEN', status: 'PAID', status_code: '200', order_id: orderIdOf(pi) });
    expect(n.parse(signed(body), body)).toEqual({ item: { kind: 'payment', paymentId: pi, providerPaymentId: 'D-4-1', claimed: 'PAID' } });
    const foreign = JSON.stringify({ id: 'D-4-2', amount: 10, currency: 'PEN', status: 'PAID', order_id: 'jhg4v34v534' });
    expect(n.parse(signed(foreign), foreign)).toMatchObject({ item: { paymentId: null } });
  });

  it('a card payment names our payment and the attempt’s order id (`dc`, `dc…a<n>`): only that attempt is read back', () => {
    for (const attempt of [1, 2]) {
      const orderId = cardOrderIdOf(pi, attempt);
      const body = JSON.stringify({
        id: 'D-4-7',
        amount: 120,
        currency: 'BRL',
        status: 'PAID',
        payment_method_id: 'CARD',
        order_id: orderId,
      });
      expect(n.parse(signed(body), body)).toEqual({
        item: { kind: 'payment', paymentId: pi, providerPaymentId: 'D-4-7', claimed: 'PAID', cardReference: orderId },
      });
    }
    // A refund of a card payment names the payment by the card order too.
    const refund = JSON.stringify({ id: 'REF-9', payment_id: 'D-4-7', status: 'SUCCESS', order_id: cardOrderIdOf(pi, 2) });
    expect(n.parse(signed(refund), refund)).toMatchObject({ item: { kind: 'refund', paymentId: pi } });
  });

  it('a refund names our refund when dLocal echoes our order_refund_id, our payment by its order_id, else only its own id', () => {
    const re = 're_AAECAwQFBgcICQoLDA0ODw';
    const body = JSON.stringify({
      id: 'REF-1',
      payment_id: 'D-4-1',
      status: 'SUCCESS',
      status_code: 200,
      order_refund_id: refundReferenceOf(re),
    });
    expect(n.parse(signed(body), body)).toEqual({
      item: { kind: 'refund', refundId: re, paymentId: null, providerRefundId: 'REF-1', providerPaymentId: 'D-4-1', claimed: 'SUCCESS' },
    });
    const pi = 'pi_AAECAwQFBgcICQoLDA0ODw';
    const withOrder = JSON.stringify({ id: 'REF-3', payment_id: 'D-4-1', status: 'SUCCESS', order_id: orderIdOf(pi) });
    expect(n.parse(signed(withOrder), withOrder)).toMatchObject({ item: { refundId: null, paymentId: pi, providerRefundId: 'REF-3' } });
    const bare = JSON.stringify({ id: 'REF-2', payment_id: 'D-4-1', status: 'PENDING' });
    expect(n.parse(signed(bare), bare)).toMatchObject({ item: { refundId: null, paymentId: null, providerRefundId: 'REF-2' } });
  });

  it('forged or unsigned is counted before anything is read; a signed body of another shape is not dLocal’s', () => {
    const body = '{"id":"D-4-1","amount":10,"currency":"PEN","status":"PAID"}';
    expect(n.parse(signed(body, 'another-secret'), body)).toEqual({ forged: true });
    expect(n.parse({}, body)).toEqual({ forged: true });
    expect(n.parse(signed('not json'), 'not json')).toBeNull();
    const odd = '{"id":"D-4-1","status":"SETTLED","amount":1,"currency":"PEN"}';
    expect(n.parse(signed(odd), odd)).toBeNull();
  });
});

describe('payout notifications', () => {
  const po = 'po_AAECAwQFBgcICQoLDA0ODw';
  const body = JSON.stringify({ id: 'PO-4-1', external_id: externalIdOf(po), status: 'PAID', status_code: '200' });
  it('signed: verified; unsigned: only a prompt to read back; wrongly signed: forged', () => {
    expect(n.parsePayout(signed(body), body)).toEqual({
      item: { payoutId: po, providerPayoutId: 'PO-4-1', claimed: 'PAID', verified: true },
    });
    expect(n.parsePayout({}, body)).toEqual({ item: { payoutId: po, providerPayoutId: 'PO-4-1', claimed: 'PAID', verified: false } });
    expect(n.parsePayout(signed(body, 'another-secret'), body)).toEqual({ forged: true });
    expect(n.parsePayout({}, '{"external_id":1}')).toBeNull();
  });
});
