/**
 * Live PIX payouts through Efí (issue 33), over real HTTP on the local engines against the fake Efí (mutual TLS,
 * every request checked against our schemas of Efí's send API): completed by Efí's callback (read back first),
 * failed and credited back once, duplicate and out-of-order callbacks, a wrong token, a refusal (our balance at
 * Efí too low pages ops), a send whose answer was lost resolved by reading it back with one send only, a 5xx and a
 * hang left processing until the resume job settles them, and a missed callback found by the job.
 */
import { randomBytes } from 'node:crypto';
import { idEnvioOf } from '../../shared/adapters/providers/efi/efi.transformers';
import { REFUSALS, startFakeEfi, type FakeEfi } from '../support/fake-efi';
import { verifyWebhook } from '../support/merchant-verify';
import type { Receiver } from '../support/receiver';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { providersCheck, registerEfiWebhook } from '../../bin/cli/providers';
import {
  callAs,
  expectLedgerEqualsBalance,
  fundLive,
  startLiveStage,
  type LiveMerchant,
  type LiveStage,
  until,
  resumeSettlementsNow,
} from '../support/live-stage';
import type { TestStack } from '../support/test-stack';
import { ledger } from '../support/payments';

const TOKEN = randomBytes(24).toString('base64url');
const KEY = 'ana.silva@example.com';
const CPF = '52998224725';
let efi: FakeEfi;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;
let live: LiveStage;

beforeAll(async () => {
  efi = await startFakeEfi({ hangMs: 10_000 });
  live = await startLiveStage(
    { efi: { ...efi.efiConfig(TOKEN), timeouts: { connect_ms: 1000, total_ms: 1500 } } },
    { merchantName: 'Loja ao Vivo', receiver: true },
  );
  ({ stack, receiver, merchant } = live);
  efi.setWebhookUrl(`${stack.baseUrl}/providers/efi/${TOKEN}`);
  await fundLive(merchant.merchantId, 'BRL', 10_000_000);
});

afterEach(() => {
  expect(efi.violations).toEqual([]);
});

afterAll(async () => {
  await live?.stop();
  await efi?.close();
});

const call = (method: string, path: string, body?: unknown) => callAs(stack, merchant.apiKey, method, path, body);
const payout = (over: Record<string, unknown> = {}, beneficiary: Record<string, unknown> = {}) =>
  call('POST', '/api/v1/payout', {
    method_code: 'svc-mt-5',
    amount: 150.25,
    currency: 'BRL',
    description: 'Repasse pedido 4411',
    beneficiary: {
      name: 'Ana Silva',
      document: CPF,
      document_type: 'CPF',
      instant_transfer_key: KEY,
      instant_transfer_type: 'email',
      ...beneficiary,
    },
    ...over,
  });
const get = async (id: string) => (await call('GET', `/api/v1/payout/${id}`)).body;
const balance = async (): Promise<number> => {
  const r = await call('GET', '/api/v1/balance');
  const b = (r.body.balances as Array<{ currency: string; available: number }>).find((x) => x.currency === 'BRL');
  return Math.round((b?.available ?? 0) * 100);
};
const ledgerMatches = () => expectLedgerEqualsBalance(stack, merchant, 'BRL');
const hook = async (id: string, event: string) => {
  const [h] = await receiver.waitFor(1, 15_000, (r) => r.body?.event === event && r.body?.payout_id === id);
  expect(verifyWebhook(h!.rawBody, h!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
  return h!.body as Record<string, unknown>;
};
const hooksFor = (id: string) => receiver.received.filter((r) => r.body?.payout_id === id).map((r) => r.body?.event);
const readBacks = (idEnvio: string) => efi.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/id-envio/${idEnvio}`)).length;
const idOf = (message: unknown) => /po_[A-Za-z0-9_-]{22}/.exec(String(message))![0];
/** The callback body Efí posts for one send (as the fake's own callbacks are), with the status it claims. */
const callbackOf = (idEnvio: string, status: 'REALIZADO' | 'NAO_REALIZADO', spi?: string) => {
  const s = efi.send(idEnvio)!;
  return {
    pix: [
      {
        endToEndId: s.endToEndId,
        chave: efi.pixKey,
        tipo: 'SOLICITACAO',
        status,
        valor: s.request.valor,
        horario: s.liquidacao ?? null,
        gnExtras: { idEnvio, ...(spi ? { erro: { codigo: spi, origem: 'PSP', motivo: 'x' } } : {}) },
      },
    ],
  };
};
const payoutCredits = async (id: string) =>
  (await ledger(merchant, 'BRL', 'live')).filter((e) => e.object_id === id).map((e) => Number(e.amount_minor));

describe('live PIX payouts through Efí', () => {
  it('providers check reads Efí’s webhook registration; providers efi register-webhook sets our callback URL', async () => {
    const lines: string[] = [];
    const io = { out: (l: string) => void lines.push(l), err: (l: string) => void lines.push(l) };
    const o = { providers: process.env.PROVIDERS_FILE, baseUrl: stack.baseUrl };
    expect(await registerEfiWebhook(o, io)).toBe(0);
    expect(efi.webhookUrl()).toBe(`${stack.baseUrl}/providers/efi/${TOKEN}`);
    expect(await providersCheck(o, io)).toBe(0);
    expect(lines.join('\n')).toContain('efi: webhook registered');
    // The token never shows whole.
    expect(lines.join('\n')).not.toContain(TOKEN);
  });

  it('sends the PIX by key after committing the debit, and completes once Efí’s callback is read back', async () => {
    const before = await balance();
    const r = await payout();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'processing' });
    const id = r.body.payout_id as string;
    const idEnvio = idEnvioOf(id);
    expect(efi.send(idEnvio)?.request).toEqual({
      valor: '150.25',
      pagador: { chave: efi.pixKey, infoPagador: 'Repasse pedido 4411' },
      favorecido: { chave: KEY, cpf: CPF },
    });
    expect(await balance()).toBe(before - 15025);
    const shown = await get(id);
    expect(JSON.stringify(shown)).not.toContain(KEY);
    expect(shown).not.toHaveProperty('provider');

    const seen = readBacks(idEnvio);
    expect(await efi.complete(idEnvio)).toMatchObject({ status: 200 });
    expect(readBacks(idEnvio)).toBe(seen + 1);
    expect(await get(id)).toMatchObject({ status: 'completed', completed_at: expect.any(String) });
    expect(await hook(id, 'payout.completed')).toMatchObject({ status: 'completed', amount: 150.25, currency: 'BRL' });

    // The same callback again, and an out-of-order failure of the settled send: nothing moves.
    expect((await efi.sendCallback(callbackOf(idEnvio, 'REALIZADO'))).status).toBe(200);
    expect((await efi.sendCallback(callbackOf(idEnvio, 'NAO_REALIZADO', 'AC03'))).status).toBe(200);
    expect((await get(id)).status).toBe('completed');
    expect(await balance()).toBe(before - 15025);
    await new Promise((res) => setTimeout(res, 300));
    expect(hooksFor(id).filter((e) => e === 'payout.completed')).toHaveLength(1);
    expect(hooksFor(id)).not.toContain('payout.failed');
    expect(efi.attempts(idEnvio)).toBe(1);
    await ledgerMatches();
  });

  it('a send Efí fails (NAO_REALIZADO) fails the payout with our code and credits it back once, even when told twice', async () => {
    const before = await balance();
    const id = (await payout({ amount: 40 })).body.payout_id as string;
    const idEnvio = idEnvioOf(id);
    expect(await balance()).toBe(before - 4000);
    expect(await efi.fail(idEnvio, { spi: 'AC03' })).toMatchObject({ status: 200 });
    expect(await get(id)).toMatchObject({ status: 'failed', failure_reason: 'invalid_account' });
    const failed = await hook(id, 'payout.failed');
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'invalid_account' });
    expect(JSON.stringify(failed)).not.toMatch(/AC03|PSP/);
    expect(await balance()).toBe(before);
    expect((await efi.sendCallback(callbackOf(idEnvio, 'NAO_REALIZADO', 'AC03'))).status).toBe(200);
    expect((await efi.sendCallback(callbackOf(idEnvio, 'REALIZADO'))).status).toBe(200);
    expect(await get(id)).toMatchObject({ status: 'failed' });
    expect(await balance()).toBe(before);
    expect((await payoutCredits(id)).sort((a, b) => a - b)).toEqual([-4000, 4000]);
    await ledgerMatches();
  });

  it('forged or early callbacks move nothing: a wrong token is 404 reading nothing; a claim Efí does not show yet is a 502', async () => {
    const before = await balance();
    const id = (await payout({ amount: 12 })).body.payout_id as string;
    const idEnvio = idEnvioOf(id);
    const seen = efi.requests.length;
    const claim = callbackOf(idEnvio, 'REALIZADO');
    const wrong = await efi.sendCallback(claim, { url: `${stack.baseUrl}/providers/efi/${'x'.repeat(40)}/pix` });
    expect(wrong.status).toBe(404);
    expect(efi.requests.length).toBe(seen);
    // The right token, but Efí still shows the send in flight: not applied; Efí is asked to send it again.
    const early = await efi.sendCallback(claim);
    expect(early.status).toBe(502);
    expect(JSON.parse(early.body).error.code).toBe('PROVIDER_UNAVAILABLE');
    expect((await get(id)).status).toBe('processing');
    expect(await balance()).toBe(before - 1200);
    // Not Efí's shape: 400, nothing read.
    expect((await efi.sendCallback({ nope: true })).status).toBe(400);
    await efi.complete(idEnvio);
    expect((await get(id)).status).toBe('completed');
    await ledgerMatches();
  });

  it('Efí refuses the send (our balance there too low): 422, failed and credited back, ops paged, no Efí text to merchants', async () => {
    const before = await balance();
    efi.refuse('sem.saldo@example.com', REFUSALS.balance);
    // What the provider metrics publish (EMF), as test/integration/monitoring-metrics.test.ts captures it.
    const published: string[] = [];
    const publish = Metrics.prototype.publishStoredMetrics;
    const spy = jest.spyOn(Metrics.prototype, 'publishStoredMetrics').mockImplementation(function (this: Metrics) {
      if (this.hasStoredMetrics()) published.push(JSON.stringify(this.serializeMetrics()));
      return publish.call(this);
    });
    let r: Awaited<ReturnType<typeof payout>>;
    try {
      r = await payout({ amount: 30 }, { instant_transfer_key: 'sem.saldo@example.com' });
    } finally {
      spy.mockRestore();
    }
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('PROVIDER_REJECTED');
    expect(r.body.error.message).not.toMatch(/saldo|fake Efí/);
    const id = idOf(r.body.error.message);
    expect(await get(id)).toMatchObject({ status: 'failed', failure_reason: 'provider_balance_insufficient' });
    expect(await hook(id, 'payout.failed')).toMatchObject({ failure_reason: 'provider_balance_insufficient' });
    expect(await balance()).toBe(before);
    // The page: its metric (the dashboard reads it on the provider's dimension, the alarm payout-provider-balance-low on [service]).
    const page = published.map((t) => JSON.parse(t) as Record<string, unknown>).find((e) => 'PayoutProviderBalanceLow' in e);
    expect(page).toMatchObject({ provider: 'efi', PayoutProviderBalanceLow: 1 });
    await ledgerMatches();
  });

  it('Efí’s refusals of a beneficiary are 422 with our failure code, credited back, nothing of Efí’s text', async () => {
    const before = await balance();
    const cases = [
      ['sem.chave@example.com', REFUSALS.keyNotFound, 'invalid_account'],
      ['outro.dono@example.com', REFUSALS.ownerMismatch, 'beneficiary_mismatch'],
      ['negado@example.com', REFUSALS.denied, 'rejected_by_provider'],
    ] as const;
    for (const [key, how, code] of cases) {
      efi.refuse(key, how);
      const r = await payout({ amount: 5 }, { instant_transfer_key: key });
      expect([r.status, r.body.error.code]).toEqual([422, 'PROVIDER_REJECTED']);
      expect(r.body.error.message).not.toMatch(/fake Efí|chave_|pagamento_negado/);
      const id = idOf(r.body.error.message);
      expect(await get(id)).toMatchObject({ status: 'failed', failure_reason: code });
    }
    expect(await balance()).toBe(before);
    await ledgerMatches();
  });

  it('a send whose answer was lost: 502 naming the payout; the resume job reads it back and never sends it again', async () => {
    const before = await balance();
    efi.failNext('send', { hangAfter: true });
    const r = await payout({ amount: 75 });
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('PROVIDER_UNAVAILABLE');
    const id = idOf(r.body.error.message);
    const idEnvio = idEnvioOf(id);
    expect((await get(id)).status).toBe('processing');
    expect(await balance()).toBe(before - 7500);
    expect(efi.attempts(idEnvio)).toBe(1);

    const asked = readBacks(idEnvio);
    await resumeSettlementsNow();
    await until(
      async () => readBacks(idEnvio),
      (n) => n > asked,
      'the read-back',
    );
    await new Promise((res) => setTimeout(res, 200));
    expect(efi.attempts(idEnvio)).toBe(1);
    expect((await get(id)).status).toBe('processing');

    // Efí settles it and its callback never comes: the next run reads it back and completes it.
    await efi.complete(idEnvio, { callback: false });
    await resumeSettlementsNow();
    await until(
      () => get(id),
      (p) => p.status === 'completed',
      'completed',
    );
    await hook(id, 'payout.completed');
    expect(efi.attempts(idEnvio)).toBe(1);
    await ledgerMatches();
  });

  it('a 5xx or a hang on the send leaves the payout processing; the resume job finds no send and sends the same one once', async () => {
    for (const fault of [{ status: 503 }, { hang: true }] as const) {
      efi.failNext('send', fault);
      const r = await payout({ amount: 21 });
      expect(r.status).toBe(502);
      const id = idOf(r.body.error.message);
      const idEnvio = idEnvioOf(id);
      expect(efi.send(idEnvio)).toBeUndefined();
      expect((await get(id)).status).toBe('processing');
      await resumeSettlementsNow();
      await until(
        async () => efi.send(idEnvio),
        (s) => s !== undefined,
        'the send made by the resume job',
      );
      expect(efi.attempts(idEnvio)).toBe(1);
      expect(efi.send(idEnvio)?.request).toMatchObject({ valor: '21.00', favorecido: { chave: KEY, cpf: CPF } });
      // The job again while the send is in flight: read back, not sent a second time.
      const asked = readBacks(idEnvio);
      await resumeSettlementsNow();
      await until(
        async () => readBacks(idEnvio),
        (n) => n > asked,
        'the read-back',
      );
      await new Promise((res) => setTimeout(res, 200));
      expect(efi.attempts(idEnvio)).toBe(1);
      // Missed callback: settled at Efí without telling us; the job finds it.
      await efi.complete(idEnvio, { callback: false });
      await resumeSettlementsNow();
      await until(
        () => get(id),
        (p) => p.status === 'completed',
        'completed by the job',
      );
    }
    await ledgerMatches();
  });
});
