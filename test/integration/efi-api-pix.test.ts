/**
 * Efí as an API Pix PSP (issue 42, DESIGN.md section 9.2): our API Pix connector against the fake Efí over real
 * HTTPS with mutual TLS, its base_url Efí's origin + `/v2`: a cob created, read back and removed; paid, the
 * received Pix goes to the key's one webhook + `/pix` and GET /v2/pix/:e2eId answers it; a devolução. Then both
 * API Pix fakes (the fake PSP and the fake Efí) failing on demand, as a whole and per operation: refusing
 * connections (nothing sent), hanging, answering 500, losing the answer of a cob they created.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { ProviderUnavailable, type PixChargeRequest } from '../../shared/application/providers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { apiPixConnectors, type ApiPixConnectors } from '../../shared/adapters/providers/api-pix/api-pix.connector';
import { cobSchema, pixSchema } from '../../shared/adapters/providers/api-pix/api-pix.schemas';
import { devolucaoIdOf, txidOf } from '../../shared/adapters/providers/api-pix/api-pix.transformers';
import { providerHttp } from '../../shared/adapters/providers/http-client';
import { clientCredentialsToken } from '../../shared/adapters/providers/oauth-token';
import { startFakeEfi, type FakeEfi } from '../support/fake-efi';
import { startFakePsp, type FakePsp } from '../support/fake-psp';
import type { Outage } from '../support/fake-listener';

const TOKEN = randomBytes(24).toString('base64url');
let efi: FakeEfi;
let psp: FakePsp;
let hook: Server;
let hookBase = '';
const posted: Array<{ path: string; body: unknown }> = [];
const opened: ApiPixConnectors[] = [];

type Timeouts = { connect_ms: number; total_ms: number };
/** Generous limits (a loaded machine answers a local fake slowly); the hang cases use a short one. */
const SLOW: Timeouts = { connect_ms: 3_000, total_ms: 5_000 };
const QUICK: Timeouts = { connect_ms: 3_000, total_ms: 1_000 };

const connectors = (block: Record<string, unknown>, timeouts: Timeouts) => {
  const c = apiPixConnectors(parseProvidersConfig({ api_pix: { ...block, timeouts } }, 'test').api_pix!);
  opened.push(c);
  return c;
};
/** The `efi` block's PSP as our API Pix connector sees it: Efí's API Pix lives under `/v2` of its origin. */
const efiApiPix = (timeouts = SLOW) => connectors({ ...efi.efiConfig(TOKEN), base_url: `${efi.baseUrl}/v2` }, timeouts);
const pspApiPix = (timeouts = SLOW) => connectors(psp.apiPixConfig(TOKEN), timeouts);

beforeAll(async () => {
  [efi, psp] = await Promise.all([startFakeEfi({ hangMs: 5_000 }), startFakePsp({ hangMs: 5_000 })]);
  hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posted.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end('200');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const addr = hook.address();
  hookBase = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
afterEach(() => {
  expect(efi.violations).toEqual([]);
  expect(psp.violations).toEqual([]);
});
afterAll(async () => {
  for (const c of opened) c.client.close();
  await Promise.all([efi?.close(), psp?.close(), new Promise<void>((r) => (hook ? hook.close(() => r()) : r()))]);
});

const charge = (amountMinor = 5000): PixChargeRequest => {
  const now = Date.now();
  return {
    paymentId: `pi_${randomBytes(16).toString('base64url')}`,
    amountMinor,
    merchantName: 'Loja Exemplo',
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + 3_600_000).toISOString(),
    debtor: { document: '52998224725', name: 'Maria Souza' },
  };
};

describe('PIX pay-ins through the fake Efí’s API Pix', () => {
  it('registers the key’s webhook, creates a cob at /v2/cob/{txid}, reads it back and removes another', async () => {
    const c = efiApiPix();
    await c.webhooks.register(`${hookBase}/providers/efi/${TOKEN}`);
    expect(efi.webhookUrl()).toBe(`${hookBase}/providers/efi/${TOKEN}`);
    const req = charge();
    const created = await c.pix.createCharge(req);
    expect(created).toMatchObject({ txid: txidOf(req.paymentId), pixCode: expect.stringMatching(/^000201/) });
    expect(efi.requests.filter((r) => r.method === 'PUT').map((r) => r.path)).toContain(`/v2/cob/${created.txid}`);
    expect(efi.cob(created.txid)).toMatchObject({ status: 'ATIVA', valor: { original: '50.00' }, chave: efi.pixKey });
    await expect(c.pix.getCharge!(created.txid)).resolves.toMatchObject({ kind: 'open', charge: { txid: created.txid } });
    // The same PUT again is the same cob, never a second one.
    await expect(c.pix.createCharge(req)).resolves.toEqual(created);
    await expect(c.pix.getCharge!(txidOf(charge().paymentId))).resolves.toEqual({ kind: 'not_found' });

    const other = await c.pix.createCharge(charge());
    await expect(c.pix.removeCharge!(other.txid)).resolves.toMatchObject({ kind: 'removed' });
    expect(efi.cob(other.txid)?.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
  });

  it('paid: the received Pix is posted to the key’s webhook + /pix (where sends are told), and read back by cob and by e2eId', async () => {
    const c = efiApiPix();
    efi.setWebhookUrl(`${hookBase}/providers/efi/${TOKEN}`);
    const { txid } = await c.pix.createCharge(charge(4900));
    const from = posted.length;
    const paid = await efi.pay(txid);
    expect(paid.callbackStatus).toBe(200);
    expect(posted.slice(from)).toEqual([
      {
        path: `/providers/efi/${TOKEN}/pix`,
        body: { pix: [{ endToEndId: paid.endToEndId, txid, valor: '49.00', chave: efi.pixKey, horario: expect.any(String) }] },
      },
    ]);
    expect(c.pixCallbacks.parse(posted.at(-1)!.body)).toEqual({ items: [{ reference: txid, endToEndId: paid.endToEndId }], ignored: 0 });
    await expect(c.pix.getCharge!(txid)).resolves.toMatchObject({
      kind: 'paid',
      received: [{ endToEndId: paid.endToEndId, amountMinor: 4900, refunds: [], fraudReturns: [] }],
    });
    const pix = await c.client.call('getCob', 'GET', `/pix/${paid.endToEndId}`, pixSchema);
    expect(pix).toMatchObject({ endToEndId: paid.endToEndId, txid, valor: '49.00' });
    // A cob is paid once.
    await expect(efi.pay(txid)).rejects.toThrow(/CONCLUIDA, not payable/);
  });

  it('a devolução by our refund id: pending, then DEVOLVIDO told on the webhook and seen on the Pix and its cob', async () => {
    const c = efiApiPix();
    efi.setWebhookUrl(`${hookBase}/providers/efi/${TOKEN}`);
    const { txid } = await c.pix.createCharge(charge(5000));
    const { endToEndId } = await efi.pay(txid, { callback: false });
    const refundId = `re_${randomBytes(16).toString('base64url')}`;
    await expect(c.pixRefunds.send({ endToEndId, refundId, amountMinor: 2000, description: 'devolução' })).resolves.toEqual({
      refundId,
      kind: 'pending',
    });
    // Our refund id is the idempotency key: the same request is the same devolução.
    await expect(c.pixRefunds.send({ endToEndId, refundId, amountMinor: 2000, description: 'devolução' })).resolves.toMatchObject({
      kind: 'pending',
    });
    await expect(c.pixRefunds.get({ endToEndId, refundId })).resolves.toEqual({ refundId, kind: 'pending' });
    const from = posted.length;
    await efi.settleDevolucao(endToEndId, devolucaoIdOf(refundId), 'DEVOLVIDO');
    expect(posted.slice(from)).toEqual([
      {
        path: `/providers/efi/${TOKEN}/pix`,
        body: { pix: [expect.objectContaining({ endToEndId, txid, devolucoes: [expect.objectContaining({ status: 'DEVOLVIDO' })] })] },
      },
    ]);
    await expect(c.pixRefunds.get({ endToEndId, refundId })).resolves.toMatchObject({ refundId, kind: 'succeeded' });
    await expect(c.pix.getCharge!(txid)).resolves.toMatchObject({
      kind: 'paid',
      received: [{ refunds: [{ refundId, kind: 'succeeded' }] }],
    });
    const pix = await c.client.call('getCob', 'GET', `/pix/${endToEndId}`, pixSchema);
    expect(pix?.devolucoes).toEqual([expect.objectContaining({ id: devolucaoIdOf(refundId), valor: '20.00', status: 'DEVOLVIDO' })]);
    // A MED return of the same Pix (Efí's own devolução) shows on the cob too.
    efi.medReturn(endToEndId, '10.00');
    await expect(c.pix.getCharge!(txid)).resolves.toMatchObject({ received: [{ fraudReturns: [{ amountMinor: 1000 }] }] });
  });

  it('Efí’s JSON grant authorises API Pix calls; our connector’s form grant is taken too, unless the fake is told JSON only', async () => {
    const cfg = efi.efiConfig(TOKEN);
    const http = providerHttp(
      'efi',
      { certificatePem: cfg.certificate_pem, privateKeyPem: cfg.private_key_pem, caPem: cfg.ca_pem },
      {
        connectMs: 3_000,
        totalMs: 5_000,
      },
    );
    try {
      const token = clientCredentialsToken({
        transport: http,
        tokenUrl: cfg.token_url!,
        clientId: cfg.client_id!,
        clientSecret: cfg.client_secret!,
        encoding: 'json',
        unavailable: (reason) => new Error(reason),
      });
      const { txid } = await efiApiPix().pix.createCharge(charge());
      const a = await http.send({
        method: 'GET',
        url: `${efi.baseUrl}/v2/cob/${txid}`,
        headers: { authorization: `Bearer ${await token()}` },
      });
      expect(a.status).toBe(200);
      expect(cobSchema.parse(JSON.parse(a.text))).toMatchObject({ txid, status: 'ATIVA' });
      const grants = efi.requests.filter((r) => r.path === '/oauth/token').map((r) => r.body);
      expect(grants).toEqual(expect.arrayContaining([{ grant_type: 'client_credentials' }, 'grant_type=client_credentials']));
    } finally {
      http.close();
    }

    const strict = await startFakeEfi({ tokenEncodings: ['json'] });
    try {
      const c = apiPixConnectors(
        parseProvidersConfig({ api_pix: { ...strict.efiConfig(TOKEN), base_url: `${strict.baseUrl}/v2`, timeouts: SLOW } }, 'test')
          .api_pix!,
      );
      await expect(c.pix.createCharge(charge())).rejects.toMatchObject({ operation: 'token' });
      c.client.close();
      expect(strict.violations).toEqual([expect.stringMatching(/^token body: form-encoded/)]);
    } finally {
      await strict.close();
    }
  });
});

interface Subject {
  readonly requests: ReadonlyArray<{ method: string; path: string }>;
  outage(how: Outage | null): Promise<void>;
  currentOutage(): Outage | null;
  failNext(op: 'putCob' | 'getCob', how: { status: number } | { hang: true } | { lost: true }, times?: number): void;
  cob(txid: string): { status: string } | undefined;
}

describe.each([
  ['the fake Efí', () => ({ fake: efi as Subject, api: efiApiPix })],
  ['the fake PSP', () => ({ fake: psp as Subject, api: pspApiPix })],
])('%s fails on demand', (_name, subject) => {
  /** A connector holding a token already, so that the call under test is the cob's. */
  const warm = async (timeouts?: Timeouts) => {
    const { fake, api } = subject();
    const c = api(timeouts);
    await c.pix.getCharge!(txidOf(charge().paymentId));
    return { fake, c };
  };
  const puts = (fake: Subject, txid: string) => fake.requests.filter((r) => r.method === 'PUT' && r.path.endsWith(`/cob/${txid}`)).length;
  afterEach(async () => {
    await subject().fake.outage(null);
  });

  it('refuse: the connection is refused before anything is sent; cleared, it serves on the same port again', async () => {
    const { fake, c } = await warm();
    const req = charge();
    await fake.outage('refuse');
    expect(fake.currentOutage()).toBe('refuse');
    const seen = fake.requests.length;
    const e = await c.pix.createCharge(req).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderUnavailable);
    expect(e).toMatchObject({ operation: 'putCob', reason: 'connection refused' });
    // A connector that never connected is refused at its token call, just the same.
    await expect(subject().api().pix.createCharge(req)).rejects.toMatchObject({ operation: 'token', reason: 'connection refused' });
    expect(fake.requests.length).toBe(seen);
    expect(fake.cob(txidOf(req.paymentId))).toBeUndefined();
    await fake.outage(null);
    expect(fake.currentOutage()).toBeNull();
    await expect(c.pix.createCharge(req)).resolves.toMatchObject({ txid: txidOf(req.paymentId) });
  });

  it('hang: every call is taken and never answered; the client gives up and nothing was created', async () => {
    const { fake, c } = await warm(QUICK);
    const req = charge();
    await fake.outage('hang');
    await expect(c.pix.createCharge(req)).rejects.toMatchObject({ operation: 'putCob', reason: 'no answer within 1000 ms' });
    expect(puts(fake, txidOf(req.paymentId))).toBe(1);
    expect(fake.cob(txidOf(req.paymentId))).toBeUndefined();
    await fake.outage(null);
    await expect(c.pix.createCharge(req)).resolves.toMatchObject({ txid: txidOf(req.paymentId) });
  });

  it('500: every call is answered 500 (the token call too); the connector tries once more, and nothing was created', async () => {
    const { fake, c } = await warm();
    const req = charge();
    await fake.outage({ status: 500 });
    await expect(c.pix.createCharge(req)).rejects.toMatchObject({ operation: 'putCob', reason: 'the PSP answered 500' });
    expect(puts(fake, txidOf(req.paymentId))).toBe(2);
    expect(fake.cob(txidOf(req.paymentId))).toBeUndefined();
    await expect(subject().api().pix.createCharge(req)).rejects.toMatchObject({ operation: 'token' });
  });

  it('lost: the cob is created, the connection dropped unanswered; read back, it is there, and the same PUT answers it', async () => {
    const { fake, c } = await warm();
    const req = charge();
    await fake.outage('lost');
    await expect(c.pix.createCharge(req)).rejects.toMatchObject({
      operation: 'putCob',
      reason: expect.stringMatching(/^connection reset/),
    });
    expect(fake.cob(txidOf(req.paymentId))).toMatchObject({ status: 'ATIVA' });
    // Every answer is lost, the read-back's too, until the fault is cleared.
    await expect(c.pix.getCharge!(txidOf(req.paymentId))).rejects.toBeInstanceOf(ProviderUnavailable);
    await fake.outage(null);
    await expect(c.pix.getCharge!(txidOf(req.paymentId))).resolves.toMatchObject({ kind: 'open' });
    await expect(c.pix.createCharge(req)).resolves.toMatchObject({ txid: txidOf(req.paymentId) });
  });

  it('per operation: a lost answer, a hang and a status each meet the next call of that operation only', async () => {
    const { fake, c } = await warm(QUICK);
    const lost = charge();
    fake.failNext('putCob', { lost: true });
    await expect(c.pix.createCharge(lost)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(fake.cob(txidOf(lost.paymentId))).toMatchObject({ status: 'ATIVA' });
    fake.failNext('getCob', { status: 503 }, 2);
    await expect(c.pix.getCharge!(txidOf(lost.paymentId))).rejects.toMatchObject({ reason: 'the PSP answered 503' });
    await expect(c.pix.getCharge!(txidOf(lost.paymentId))).resolves.toMatchObject({ kind: 'open' });
    const hung = charge();
    fake.failNext('putCob', { hang: true });
    await expect(c.pix.createCharge(hung)).rejects.toMatchObject({ reason: 'no answer within 1000 ms' });
    expect(fake.cob(txidOf(hung.paymentId))).toBeUndefined();
    await expect(c.pix.createCharge(hung)).resolves.toMatchObject({ txid: txidOf(hung.paymentId) });
  });
});
