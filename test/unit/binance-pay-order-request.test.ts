/**
 * One request per payment at Binance Pay (DESIGN.md 8): a retry of a create whose answer was lost sends the same
 * body, so the order's expiry is counted from when the payment was made, not from the send.
 */
import { createOrderRequestOf } from '../../shared/adapters/providers/binance-pay/binance-pay.connector';
import type { LocalPaymentRequest } from '../../shared/application/providers';

const cfg = { base_url: 'https://bpay.example', api_key: 'k'.repeat(20), secret_key: 's'.repeat(32) };
const req: LocalPaymentRequest = {
  paymentId: 'pi_AAAAAAAAAAAAAAAAAAAAAA',
  methodCode: 'svc-mt-4',
  amountMinor: 12_345,
  currency: 'BRL',
  country: 'BRA',
  payer: { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' },
  notificationUrl: 'https://api.example/providers/binance-pay/notifications',
  returnUrl: 'https://api.example/providers/binance-pay/return/pi_AAAAAAAAAAAAAAAAAAAAAA',
  createdAt: '2026-11-27T10:00:00.000Z',
  expiresAt: '2026-11-27T11:00:00.000Z',
  merchantName: 'Loja',
};

describe('Binance Pay create order request', () => {
  it('is the same body whenever it is sent: the expiry counts from the payment, capped by its own expiry', () => {
    const first = createOrderRequestOf(cfg, req, Date.parse('2026-11-27T10:00:01Z'));
    const retry = createOrderRequestOf(cfg, req, Date.parse('2026-11-27T10:04:30Z'));
    expect(retry).toEqual(first);
    expect(first.orderExpireTime).toBe(Date.parse('2026-11-27T10:30:00Z'));
    const short = createOrderRequestOf(cfg, { ...req, expiresAt: '2026-11-27T10:12:00.000Z' }, Date.parse('2026-11-27T10:00:01Z'));
    expect(short.orderExpireTime).toBe(Date.parse('2026-11-27T10:12:00Z'));
  });
});
