/**
 * Live PIX through API Pix (issue 21), over real HTTP on the local engines against the fake PSP (mutual TLS,
 * OAuth2, every request checked against our schemas of the published spec): the paid flow with the PSP's
 * callback and the merchant's signed webhook, forged and missed callbacks, timeouts, refunds in each outcome.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { reconcileHeldPayments } from '../../shared/application/rails';
import { paymentDeps } from '../../shared/wiring';
import { startFakePsp, type FakePsp } from '../support/fake-psp';
import { verifyWebhook } from '../support/merchant-verify';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestStack, type TestStack } from '../support/test-stack';
import { customer } from '../support/payments';
import { providersCheck } from '../../bin/cli/providers';

const TOKEN = randomBytes(24).toString('base64url');
let psp: FakePsp;
let stack: TestStack;
let receiver: Receiver;
let merchant: { merchantId: string; apiKey: string; webhookSecret: string };
let providersFile: string;

function writeProviders(over: Record<string, unknown> = {}) {
  writeFileSync(
    providersFile,
    JSON.stringify({ api_pix: { ...psp.apiPixConfig(TOKEN), timeouts: { connect_ms: 1000, total_ms: 1500 }, ...over } }),
  );
}

beforeAll(async () => {
  psp = await startFakePsp();
  providersFile = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
  writeProviders();
  Object.assign(process.env, {
    STAGE: 'live',
    PROVIDERS_FILE: providersFile,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    REFUND_SETTLEMENT_DELAY_SECONDS: '0',
  });
  stack = await startTestStack({ workers: true });
  receiver = await startReceiver();
  const created = await stack.admin.createMerchant({ name: 'Loja Ao Vivo', notification_url: receiver.url });
  const key = await stack.admin.createKey(created.merchant.merchant_id, 'live');
  merchant = { merchantId: created.merchant.merchant_id, apiKey: key.secret, webhookSecret: created.webhookSecret };
  // The PSP posts to <base>/providers/api-pix/<token>/pix, as `providers api-pix register-webhook` registers it.
  await fetchPsp('PUT', `/webhook/${psp.pixKey}`);
});

afterEach(() => {
  writeProviders();
  expect(psp.violations).toEqual([]);
});

afterAll(async () => {
  await receiver?.stop();
  await stack?.stop();
  await psp?.close();
  process.env.STAGE = 'sandbox';
  delete process.env.PROVIDERS_FILE;
});

/** Registers the webhook the way the CLI does (through our connector, so the fake checks that request too). */
async function fetchPsp(_method: string, _path: string) {
  const { buildLiveProviders } = await import('../../shared/adapters/providers/live-connectors');
  const { parseProvidersConfig } = await import('../../shared/adapters/providers/providers.config');
  const live = buildLiveProviders(parseProvidersConfig(JSON.stringify({ api_pix: psp.apiPixConfig(TOKEN) }), 'test'));
  await live.apiPix?.webhooks.register(`${stack.baseUrl}/providers/api-pix/${TOKEN}`);
  live.apiPix?.client.close();
}

const direct = (over: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  stack.request('/cashier/cashier/payment', {
    method: 'POST',
    apiKey: merchant.apiKey,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ payment_method: 'pix', amount: 25, currency: 'BRL', country: 'BRA', customer, ...over }),
  });
const status = (id: string) => stack.request(`/cashier/cashier/status/${merchant.merchantId}/${id}`, { apiKey: merchant.apiKey });
/** The available balance as the merchant reads it (GET /api/v1/balance), in minor units. */
async function liveBalance(currency = 'BRL'): Promise<number> {
  const r = await stack.request('/api/v1/balance', { apiKey: merchant.apiKey });
  expect(r.status).toBe(200);
  const b = (r.body.balances as Array<{ currency: string; available: number }>).find((x) => x.currency === currency);
  return Math.round((b?.available ?? 0) * 100);
}
const txidOf = (paymentId: string) => `pi${Buffer.from(paymentId.slice(3), 'base64url').toString('hex')}`;
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);
const webhooksFor = (id: string, type: string) => receiver.waitFor(1, 15_000, (r) => r.body?.event === type && r.body?.payment_id === id);

describe('live PIX through API Pix', () => {
  it("a direct payment creates the cob with the payment's fields, shows the PSP's code, and settles on the PSP's callback", async () => {
    const before = await liveBalance();
    const r = await direct({ amount: 25, description: 'Pedido 42' });
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    const cob = psp.cob(txidOf(id));
    expect(cob).toMatchObject({
      status: 'ATIVA',
      valor: { original: '25.00' },
      chave: psp.pixKey,
      devedor: { cpf: customer.document, nome: customer.name },
    });
    expect(r.body).toMatchObject({ status: 'pending', payment_method: 'pix', pix_code: cob?.pixCopiaECola });
    expect(r.body.pix_qr_code_base64).toMatch(/^data:image\/png;base64,/);

    const paid = await psp.pay(txidOf(id));
    expect(paid.callbackStatus).toBe(200);
    expect((await status(id)).body).toMatchObject({ status: 'success' });
    const [hook] = await webhooksFor(id, 'payment.success');
    expect(verifyWebhook(hook!.rawBody, hook!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
    expect(await liveBalance()).toBe(before + 2500);

    // The same callback again (a PSP retry) changes nothing: idempotent by endToEndId.
    const again = await psp.sendCallback({
      pix: [{ endToEndId: paid.endToEndId, txid: txidOf(id), valor: '25.00', horario: new Date().toISOString() }],
    });
    expect(again.status).toBe(200);
    expect(await liveBalance()).toBe(before + 2500);
  });

  it('forged callbacks settle nothing: a wrong token is 404 and reads nothing; an unpaid cob or unknown txid is a 200', async () => {
    const r = await direct();
    const id = r.body.payment_id as string;
    const seen = psp.requests.length;
    const wrong = await stack.request(`/providers/api-pix/${'x'.repeat(40)}/pix`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"pix":[]}',
    });
    expect(wrong.status).toBe(404);
    expect(psp.requests.length).toBe(seen);

    const forged = { endToEndId: `E${'1'.repeat(31)}`, txid: txidOf(id), valor: '25.00', horario: new Date().toISOString() };
    expect((await psp.sendCallback({ pix: [forged] })).status).toBe(200);
    expect((await status(id)).body.status).toBe('pending');
    expect((await psp.sendCallback({ pix: [{ ...forged, txid: `pi${'0'.repeat(32)}` }] })).status).toBe(200);
    expect((await psp.sendCallback({ nope: true })).status).toBe(400);
  });

  it('a Pix of a different amount is recorded on the payment and not settled', async () => {
    const r = await direct({ amount: 30 });
    const id = r.body.payment_id as string;
    await psp.pay(txidOf(id), { amount: '29.00' });
    const s = await status(id);
    expect(s.body.status).not.toBe('success');
    const stored = await paymentDeps().store.getPayment(id);
    expect(stored?.provider_mismatch_minor).toBe(2900);
  });

  it('a missed callback is settled by the reconciliation job reading the cob back', async () => {
    const r = await direct();
    const id = r.body.payment_id as string;
    await psp.pay(txidOf(id), { callback: false });
    expect((await status(id)).body.status).toBe('pending');
    const run = await reconcileHeldPayments(paymentDeps(), later(61));
    expect(run.settled).toBeGreaterThanOrEqual(1);
    expect((await status(id)).body.status).toBe('success');
    await webhooksFor(id, 'payment.success');
  });

  it('an expired cob is removed at the PSP and the payment expires', async () => {
    const r = await direct();
    const id = r.body.payment_id as string;
    psp.age(txidOf(id), 3600);
    await reconcileHeldPayments(paymentDeps(), later(3600));
    expect(psp.cob(txidOf(id))?.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    expect((await status(id)).body.status).toBe('expired');
  });

  it('a PSP that hangs: 502 PROVIDER_UNAVAILABLE naming the payment, left processing, then resolved by reconciliation', async () => {
    psp.failNext('putCob', { hang: true });
    const r = await direct();
    expect(r.status).toBe(502);
    expect(r.body).toMatchObject({ error_code: 'provider_unavailable' });
    const id = r.body.payment_id as string;
    expect(r.body.detail).toContain(id);
    expect((await status(id)).body.status).toBe('processing');
    await reconcileHeldPayments(paymentDeps(), later(121));
    expect((await status(id)).body.status).toBe('failed');
    await webhooksFor(id, 'payment.failed');
  });

  it('a PSP answering 503 twice: 502; the retry with the same X-Idempotency-Key repeats the same PUT and gets the code', async () => {
    psp.failNext('putCob', { status: 503 }, 2);
    const key = { 'x-idempotency-key': `retry-${randomBytes(6).toString('hex')}` };
    const first = await direct({}, key);
    expect(first.status).toBe(502);
    const second = await direct({}, key);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ payment_id: first.body.payment_id, status: 'pending' });
    expect(second.body.pix_code).toBe(psp.cob(txidOf(first.body.payment_id))?.pixCopiaECola);
  });

  it('a revoked token is refreshed once and the call retried', async () => {
    psp.revokeTokens();
    const r = await direct();
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('pending');
  });

  it('a client certificate the PSP does not trust: refused at TLS, 502, and `providers check` says so', async () => {
    writeProviders({ certificate_pem: psp.rogueClientCertPem, private_key_pem: psp.rogueClientKeyPem });
    const r = await direct();
    expect(r.status).toBe(502);
    const out: string[] = [];
    const code = await providersCheck({ providers: providersFile }, { out: (l) => out.push(l), err: (l) => out.push(l) });
    expect(code).toBe(1);
    expect(out.join('\n')).toMatch(/api_pix: FAILED: .*(TLS|reset)/);
  });

  it('live discovery offers only what a configured provider serves: PIX in Brazil, no card', async () => {
    const r = await stack.request('/api/v1/methods?country=BRA', { apiKey: merchant.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.methods.map((m: { method_code: string }) => m.method_code)).toEqual(['svc-mt-1']);
    const card = await direct({
      payment_method: 'card',
      card: { number: '4242424242424242', holder_name: 'ANA', cvv: '123', expiry_month: '12', expiry_year: '2039' },
    });
    expect(card.status).toBe(400);
    expect(card.body.error_code).toBe('invalid_request');
  });

  it('the fake PSP itself refuses a request off the published schema (and records it), so a test that drifts fails', async () => {
    const { request } = await import('node:https');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${psp.baseUrl}/cob/short`,
        { method: 'PUT', ca: psp.caPem, cert: psp.clientCertPem, key: psp.clientKeyPem, headers: { authorization: 'Bearer nope' } },
        (res) => resolve(res.statusCode ?? 0),
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(401);
    const before = psp.violations.length;
    const live = (await import('../../shared/adapters/providers/api-pix/api-pix.client')).apiPixClient(
      (await import('../../shared/adapters/providers/providers.config')).parseProvidersConfig({ api_pix: psp.apiPixConfig(TOKEN) }, 't')
        .api_pix!,
    );
    const z = await import('../../shared/domain/zod');
    await expect(live.call('putCob', 'PUT', `/cob/${'a'.repeat(26)}`, z.unknown(), { valor: { original: '10.0' } })).rejects.toMatchObject({
      name: 'ProviderRejected',
      status: 400,
    });
    live.close();
    expect(psp.violations.slice(before).join()).toMatch(/calendario|valor\.original|chave/);
    (psp.violations as string[]).splice(before); // expected here: the afterEach guard is for the service's own requests
  });

  describe('refunds (devoluções)', () => {
    async function paidPayment(amount = 40) {
      const r = await direct({ amount });
      const id = r.body.payment_id as string;
      const paid = await psp.pay(txidOf(id));
      expect((await status(id)).body.status).toBe('success');
      return { id, e2e: paid.endToEndId };
    }
    const refund = (id: string, body: Record<string, unknown> = {}) =>
      stack.request(`/api/v1/payments/${id}/refunds`, {
        method: 'POST',
        apiKey: merchant.apiKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const refundWebhook = (refundId: string, type: string) =>
      receiver.waitFor(1, 20_000, (r) => r.body?.event === type && r.body?.refund_id === refundId);

    it('DEVOLVIDO at once: the refund succeeds', async () => {
      psp.setDevolucaoOutcome('DEVOLVIDO');
      const { id } = await paidPayment();
      const r = await refund(id, { amount: 10 });
      expect(r.status).toBe(200);
      await refundWebhook(r.body.refund_id, 'refund.succeeded');
    });

    it("EM_PROCESSAMENTO stays pending until the PSP's callback reports DEVOLVIDO", async () => {
      psp.setDevolucaoOutcome('EM_PROCESSAMENTO');
      const { id, e2e } = await paidPayment();
      const r = await refund(id);
      expect(r.status).toBe(200);
      const refundId = r.body.refund_id as string;
      const devolucaoId = `re${Buffer.from(refundId.slice(3), 'base64url').toString('hex')}`;
      await waitUntil(() => psp.requests.some((q) => q.method === 'PUT' && q.path.endsWith(`/devolucao/${devolucaoId}`)));
      const stored = await paymentDeps().refunds.get(refundId);
      expect(stored?.status).toBe('pending');
      await psp.settleDevolucao(e2e, devolucaoId, 'DEVOLVIDO');
      await refundWebhook(refundId, 'refund.succeeded');
      expect((await status(id)).body.status).toBe('refunded');
    });

    it('NAO_REALIZADO: the refund fails and the balance is credited back', async () => {
      psp.setDevolucaoOutcome('NAO_REALIZADO');
      const { id } = await paidPayment(50);
      const before = await liveBalance();
      const r = await refund(id, { amount: 20 });
      expect(r.status).toBe(200);
      await refundWebhook(r.body.refund_id, 'refund.failed');
      expect(await liveBalance()).toBe(before);
    });
  });
});

async function waitUntil(cond: () => boolean, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
