/**
 * The dLocal card connector against the fake dLocal, over real HTTPS with signed calls: approvals, hard and soft
 * declines (a soft one tried again as attempt 2 under its own order_id), 3-D Secure through the fake's page and back
 * to our callback_url, read-back by order_id (found, dLocal's not-found, and anything else never taken for
 * not-found), a lost answer read back instead of charged twice, cancel by reference, documented not-processed
 * refusals, and every way of getting no answer (connections refused or reset, a hang, a 5xx, the answer dropped)
 * as ProviderUnavailable. No card number or CVV in any error, log line or the fake's request log.
 */
import '../support/log-level-info';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { randomBytes } from 'node:crypto';
import { ProviderRejected, ProviderUnavailable } from '../../shared/application/providers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { dlocalClient, type DlocalClient } from '../../shared/adapters/providers/dlocal/dlocal.client';
import {
  DlocalCardRefused,
  dlocalCards,
  type DlocalCardConnector,
  type DlocalCardRequest,
} from '../../shared/adapters/providers/dlocal/dlocal.cards';
import { cardOrderIdOf, softDecline } from '../../shared/adapters/providers/dlocal/dlocal.card-transformers';
import { FAKE_CARDS, startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';

const TOTAL_MS = 1000;
const CVV = '737';
let fake: FakeDlocal;
let client: DlocalClient;
let cards: DlocalCardConnector;
let receiver: Server;
let receiverUrl: string;
const notified: unknown[] = [];
/** Every error the connector threw, and every line written to stdout/stderr while this file ran. */
const thrown: unknown[] = [];
const written: string[] = [];
const writes = [process.stdout, process.stderr].map((stream) =>
  jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  }),
);

beforeAll(async () => {
  fake = await startFakeDlocal({ hangMs: 3_000 });
  const cfg = parseProvidersConfig(
    { dlocal: { ...fake.dlocalConfig(), timeouts: { connect_ms: 1000, total_ms: TOTAL_MS } } },
    'test',
  ).dlocal!;
  client = dlocalClient(cfg);
  cards = dlocalCards(cfg, client);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      notified.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const addr = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/providers/dlocal/notifications`;
});
afterAll(async () => {
  client?.close();
  await fake?.close();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  writes.forEach((w) => w.mockRestore());
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
});

const paymentId = () => `pi_${randomBytes(16).toString('base64url')}`;
const request = (number: string = FAKE_CARDS.approve, over: Partial<DlocalCardRequest> = {}): DlocalCardRequest => ({
  paymentId: paymentId(),
  amountMinor: 25_990,
  currency: 'BRL',
  country: 'BRA',
  card: { number, holder_name: 'Ana Souza', expiry_month: '03', expiry_year: '2031', cvv: CVV },
  installments: 1,
  shopper: { reference: 'mch_1-0123456789abcdef01234567', email: 'ana@example.com.br' },
  returnUrl: 'https://pay.example/providers/dlocal/return/pi_1',
  payer: { document: '530.333.155-50' },
  notificationUrl: receiverUrl,
  ...over,
});
/** The connector's promise, its rejection kept for the no-card-number check. */
const caught = <T>(p: Promise<T>) =>
  p.catch((e: unknown) => {
    thrown.push(e);
    throw e;
  });
const held = (req: DlocalCardRequest, attempt = 1) => fake.cards.byOrderId.get(cardOrderIdOf(req.paymentId, attempt));

/** A browser at the fake's 3-D Secure page: GET shows it, a form POST answers it. */
function visit(url: string, form?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: form ? 'POST' : 'GET',
        ca: fake.caPem,
        headers: form ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(form);
  });
}

describe('card payments through dLocal', () => {
  it('an approved card: a signed POST /secure_payments with our order_id, read back the same by it', async () => {
    const req = request(FAKE_CARDS.approve, { installments: 3 });
    const outcome = await caught(cards.authorize(req));
    const p = held(req);
    expect(outcome).toEqual({ kind: 'approved', authorizationCode: p?.id, pspReference: p?.id });
    expect(p?.request).toMatchObject({
      amount: 259.9,
      payment_method_id: 'CARD',
      payment_method_flow: 'DIRECT',
      card: { installments: '3', capture: true, expiration_month: 3, expiration_year: 2031 },
      callback_url: req.returnUrl,
      notification_url: receiverUrl,
    });
    const sent = fake.requests.find(
      (r) => r.path === '/secure_payments' && (r.body as { order_id: string }).order_id === cardOrderIdOf(req.paymentId),
    );
    expect(sent?.headers).toMatchObject({
      'x-version': '2.1',
      authorization: expect.stringMatching(/^V2-HMAC-SHA256, Signature: [0-9a-f]{64}$/),
    });
    expect(await caught(cards.readBack(req.paymentId))).toEqual(outcome);
    expect(cards.provider.reference(req.paymentId)).toBe(cardOrderIdOf(req.paymentId));
  });

  it('a hard decline is final (no failover); a soft one may be tried once more as attempt 2, under its own order_id', async () => {
    const hard = await caught(cards.authorize(request(FAKE_CARDS.decline(302))));
    expect(hard).toMatchObject({ kind: 'declined', code: 'INSUFFICIENT_FUNDS', providerCode: 'rejected_302' });
    expect(softDecline(hard)).toBe(false);
    for (const [code, ours] of [
      [314, 'CARD_DECLINED'],
      [309, 'EXPIRED_CARD'],
      [315, 'INCORRECT_CVC'],
      [317, 'CARD_DECLINED'],
    ] as const) {
      const o = await caught(cards.authorize(request(FAKE_CARDS.decline(code))));
      expect(o).toMatchObject({ kind: 'declined', code: ours, providerCode: `rejected_${code}` });
      expect(softDecline(o)).toBe(false);
    }
    const req = request(FAKE_CARDS.decline(321));
    const soft = await caught(cards.authorize(req));
    expect(soft).toMatchObject({ kind: 'declined', code: 'CARD_DECLINED', providerCode: 'rejected_321' });
    expect(softDecline(soft)).toBe(true);
    // The router's second attempt (here at dLocal again, with another card): its own reference, its own payment.
    const second = { ...request(FAKE_CARDS.approve), paymentId: req.paymentId, reference: cardOrderIdOf(req.paymentId, 2) };
    expect(await caught(cards.authorize(second))).toMatchObject({ kind: 'approved' });
    expect(held(req, 2)?.status).toBe('PAID');
    expect(await caught(cards.readBack(req.paymentId))).toMatchObject({ kind: 'declined' });
    expect(await caught(cards.readBack(req.paymentId, { reference: cardOrderIdOf(req.paymentId, 2) }))).toMatchObject({ kind: 'approved' });
    // Another payment's order is never read or sent under this payment.
    const other = cardOrderIdOf(paymentId());
    await expect(caught(cards.readBack(req.paymentId, { reference: other }))).rejects.toMatchObject({ code: 'invalid_reference' });
  });

  it('3-D Secure: a redirect to dLocal’s page; authenticated, the shopper returns to our callback_url, read back approved', async () => {
    const req = request(FAKE_CARDS.threeDs);
    const outcome = await caught(cards.authorize(req));
    const p = held(req);
    expect(outcome).toEqual({
      kind: 'redirect',
      redirect: { url: `${fake.baseUrl}/3ds/${p?.id}`, method: 'GET', data: {} },
      pspReference: p?.id,
    });
    const url = (outcome as { redirect: { url: string } }).redirect.url;
    expect(await caught(cards.completeRedirect({ paymentId: req.paymentId, redirectResult: 'x' }))).toMatchObject({ kind: 'redirect' });
    expect(await visit(url)).toMatchObject({ status: 200, body: expect.stringContaining('Authenticate') });
    const back = await visit(url, 'outcome=PAID');
    expect(back.body).toContain(`action="${req.returnUrl}"`);
    expect(back.body).toContain(`name="paymentId" value="${p?.id}"`);
    expect(back.body).toContain('name="status" value="APPROVED"');
    // The token the return carries is not trusted: the payment is read back.
    expect(await caught(cards.completeRedirect({ paymentId: req.paymentId, redirectResult: 'forged-or-anything' }))).toEqual({
      kind: 'approved',
      authorizationCode: p?.id,
      pspReference: p?.id,
    });
    expect(notified).toContainEqual(expect.objectContaining({ id: p?.id, status: 'PAID', order_id: cardOrderIdOf(req.paymentId) }));

    const failed = request(FAKE_CARDS.threeDs);
    const r = (await caught(cards.authorize(failed))) as { redirect: { url: string } };
    expect((await visit(r.redirect.url, 'outcome=REJECTED')).body).toContain('name="status" value="REJECTED"');
    expect(await caught(cards.completeRedirect({ paymentId: failed.paymentId, redirectResult: 'x' }))).toMatchObject({ kind: 'declined' });
    // Nothing at dLocal for the order after a return: no answer, not a decline.
    await expect(caught(cards.completeRedirect({ paymentId: paymentId(), redirectResult: 'x' }))).rejects.toBeInstanceOf(
      ProviderUnavailable,
    );
  });

  it('read-back: not_found only on dLocal’s documented 404 4000; another 404, a 5xx twice, are no answer', async () => {
    const never = paymentId();
    expect(await caught(cards.readBack(never))).toEqual({ kind: 'not_found' });
    fake.failNext('order', { status: 404 }); // a 404 without dLocal's code 4000 (a proxy's, a wrong path)
    await expect(caught(cards.readBack(never))).rejects.toBeInstanceOf(ProviderUnavailable);
    const req = request();
    await caught(cards.authorize(req));
    fake.failNext('order', { status: 500 });
    expect(await caught(cards.readBack(req.paymentId))).toMatchObject({ kind: 'approved' }); // a read is retried once
    fake.failNext('order', { status: 500 }, 2);
    await expect(caught(cards.readBack(req.paymentId))).rejects.toBeInstanceOf(ProviderUnavailable);
    fake.failNext('payment', { status: 404, code: 4000 });
    await expect(caught(cards.readBack(req.paymentId))).rejects.toBeInstanceOf(ProviderUnavailable); // the order named it
  });

  it('documented 4xx refusals are ProviderRejected and not processed; no payer document: refused before any call', async () => {
    for (const [code, ours, payer] of [
      [5021, 'acquirer_unavailable', false],
      [5014, 'payer_not_allowed', true],
      [5043, 'invalid_installments', false],
    ] as const) {
      const req = request();
      fake.failNext('secure_payments', { status: 400, code });
      const e = await caught(cards.authorize(req)).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ProviderRejected);
      expect(e).toMatchObject({ code: ours, dlocalCode: code, notProcessed: true, payerRefusal: payer, status: 400 });
      expect(await caught(cards.readBack(req.paymentId))).toEqual({ kind: 'not_found' });
    }
    fake.failNext('secure_payments', { status: 400, code: 5002 }); // not documented as "not processed" for a create
    await expect(caught(cards.authorize(request()))).rejects.toMatchObject({ notProcessed: false });
    const before = fake.requests.length;
    const { payer: _payer, ...noDocument } = request();
    const e = await caught(cards.authorize(noDocument)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DlocalCardRefused);
    expect(e).toMatchObject({ code: 'payer_document_required', notProcessed: true });
    expect(fake.requests.length).toBe(before);
  });

  it('no answer of every kind is ProviderUnavailable, within the time limit, and leaves no payment (or the one read back)', async () => {
    for (const mode of ['closed', 'reset'] as const) {
      const req = request();
      await fake.refuseConnections(mode);
      try {
        const started = performance.now();
        const e = await caught(cards.authorize(req)).catch((x: unknown) => x);
        expect(e).toBeInstanceOf(ProviderUnavailable);
        expect((e as ProviderUnavailable).reason).toMatch(mode === 'closed' ? /connection refused/ : /reset|socket|disconnected/i);
        // Refused before the request left: certainly never sent (a router may fail over).
        expect((e as ProviderUnavailable).notSent).toBe(true);
        expect(performance.now() - started).toBeLessThan(TOTAL_MS);
        await expect(caught(cards.readBack(req.paymentId))).rejects.toBeInstanceOf(ProviderUnavailable);
      } finally {
        await fake.refuseConnections(null);
      }
      expect(fake.cards.creates.get(cardOrderIdOf(req.paymentId)) ?? 0).toBe(0);
      expect(await caught(cards.readBack(req.paymentId))).toEqual({ kind: 'not_found' });
    }
    for (const fault of [{ status: 503 }, { hang: true as const }]) {
      const req = request();
      fake.failNext('secure_payments', fault);
      const started = performance.now();
      const e = await caught(cards.authorize(req)).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ProviderUnavailable);
      // Sent, its outcome unknown: only a read-back that finds nothing lets a router go elsewhere.
      expect((e as ProviderUnavailable).notSent).toBe(false);
      expect(performance.now() - started).toBeLessThan(TOTAL_MS + 500);
      expect(await caught(cards.readBack(req.paymentId))).toEqual({ kind: 'not_found' });
    }
    // The answer lost (dropped, or hung) after dLocal charged: the read-back finds it, and a retry is 5009, read back.
    for (const fault of [{ dropAfter: true as const }, { hangAfter: true as const }]) {
      const req = request();
      fake.failNext('secure_payments', fault);
      await expect(caught(cards.authorize(req))).rejects.toBeInstanceOf(ProviderUnavailable);
      const found = await caught(cards.readBack(req.paymentId));
      expect(found).toMatchObject({ kind: 'approved', pspReference: held(req)?.id });
      expect(await caught(cards.authorize(req))).toEqual(found);
      expect(fake.cards.creates.get(cardOrderIdOf(req.paymentId))).toBe(2);
      expect([...fake.cards.payments.values()].filter((p) => p.request.order_id === cardOrderIdOf(req.paymentId))).toHaveLength(1);
    }
  });

  it('cancel by reference voids an open payment, leaves a closed one, and refuses a paid one (refund it instead)', async () => {
    const authorized = request(FAKE_CARDS.authorized);
    expect(await caught(cards.authorize(authorized))).toMatchObject({ kind: 'pending' });
    await caught(cards.cancelByReference(authorized.paymentId));
    expect(held(authorized)?.status).toBe('CANCELLED');
    const threeDs = request(FAKE_CARDS.threeDs);
    await caught(cards.authorize(threeDs));
    await caught(cards.cancelByReference(threeDs.paymentId));
    expect(held(threeDs)?.status).toBe('CANCELLED');
    await caught(cards.cancelByReference(paymentId())); // nothing at dLocal: nothing to void
    const rejected = request(FAKE_CARDS.decline(301));
    await caught(cards.authorize(rejected));
    const cancels = () => fake.requests.filter((r) => r.path.endsWith('/cancel')).length;
    const before = cancels();
    await caught(cards.cancelByReference(rejected.paymentId));
    expect(cancels()).toBe(before);
    const paid = request();
    await caught(cards.authorize(paid));
    await expect(caught(cards.cancelByReference(paid.paymentId))).rejects.toMatchObject({ code: 'paid_refund_required' });
    expect(held(paid)?.status).toBe('PAID');
    // dLocal will not cancel (5002) and keeps the payment open: no answer yet (the job asks again), never "voided".
    const open = request(FAKE_CARDS.pending);
    await caught(cards.authorize(open));
    fake.failNext('cancel', { status: 400, code: 5002 });
    await expect(caught(cards.cancelByReference(open.paymentId))).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(held(open)?.status).toBe('PENDING');
    await caught(cards.cancelByReference(open.paymentId));
    expect(held(open)?.status).toBe('CANCELLED');
  });
});

describe('the card’s number and CVV stay in the request to dLocal', () => {
  it('never in an error, a log line, or the fake’s request log', () => {
    expect(thrown.length).toBeGreaterThan(10);
    const numbers = [FAKE_CARDS.approve, FAKE_CARDS.threeDs, FAKE_CARDS.decline(321), FAKE_CARDS.decline(302)];
    for (const e of thrown) {
      const text = `${String(e)} ${(e as Error).stack ?? ''} ${JSON.stringify(e)}`;
      for (const n of numbers) expect(text).not.toContain(n);
    }
    const logged = written.join('\n');
    expect(logged).toContain('dLocal'); // the log was captured at all
    for (const n of numbers) expect(logged).not.toContain(n);
    const requests = JSON.stringify(fake.requests.map((r) => r.body));
    for (const n of numbers) expect(requests).not.toContain(n);
    expect(requests).not.toContain(`"cvv"`);
  });
});
