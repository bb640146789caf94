/**
 * Live PIX routed between two PSPs (issue 42, DESIGN.md 9.2), on the local engines (DynamoDB Local, fauxqs) over
 * real HTTP against the fake API Pix PSP (`api_pix`) and the fake Efí serving the same API (`efi`): the first PSP
 * refusing connections sends the payment to the second, with its own txid committed first; the shopper pays there,
 * Efí's webhook settles it and the refund goes back through Efí. A lost answer whose read-back finds the cob, and a
 * hang whose read-back cannot be made, never fail over. A cob that lands late at the abandoned PSP is found by the
 * watch and, once paid, returned in full. Ledger = balance throughout.
 */
import { randomBytes } from 'node:crypto';
import { apiPixConnectors } from '../../shared/adapters/providers/api-pix/api-pix.connector';
import { txidOf } from '../../shared/adapters/providers/api-pix/api-pix.transformers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { reconcileHeldPayments } from '../../shared/application/rails';
import { breakers, type ProviderStatsRow } from '../../shared/application/routing';
import { providersStats } from '../../bin/cli/provider-stats';
import { paymentDeps } from '../../shared/wiring';
import { startFakeEfi, type FakeEfi } from '../support/fake-efi';
import { startFakePsp, type FakePsp } from '../support/fake-psp';
import { callAs, expectLedgerEqualsBalance, startLiveStage, type LiveMerchant, type LiveStage } from '../support/live-stage';
import { verifyWebhook } from '../support/merchant-verify';
import { customer } from '../support/payments';
import type { Receiver } from '../support/receiver';
import type { TestStack } from '../support/test-stack';

const TOKEN = randomBytes(24).toString('base64url');
const EFI_TOKEN = randomBytes(24).toString('base64url');
let psp: FakePsp;
let efi: FakeEfi;
let live: LiveStage;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;

const timeouts = { connect_ms: 1000, total_ms: 1500 };
const routing = { pix: { '*': { providers: ['api_pix', 'efi'] } } };

beforeAll(async () => {
  [psp, efi] = await Promise.all([startFakePsp({ hangMs: 5_000 }), startFakeEfi({ hangMs: 5_000 })]);
  live = await startLiveStage(
    {
      api_pix: { ...psp.apiPixConfig(TOKEN), timeouts },
      efi: { ...efi.efiConfig(EFI_TOKEN), timeouts },
      routing,
    },
    { merchantName: 'Loja Roteada', receiver: true },
  );
  ({ stack, receiver, merchant } = live);
  const apiPix = apiPixConnectors(parseProvidersConfig({ api_pix: psp.apiPixConfig(TOKEN) }, 'test').api_pix!);
  await apiPix.webhooks.register(`${stack.baseUrl}/providers/api-pix/${TOKEN}`);
  apiPix.client.close();
  efi.setWebhookUrl(`${stack.baseUrl}/providers/efi/${EFI_TOKEN}`);
});

beforeEach(() => breakers.reset());

afterEach(async () => {
  await psp.outage(null);
  psp.clearFaults();
  expect(psp.violations).toEqual([]);
  expect(efi.violations).toEqual([]);
});

afterAll(async () => {
  await live?.stop();
  await Promise.all([psp?.close(), efi?.close()]);
});

const direct = (amount = 25) =>
  callAs(stack, merchant.apiKey, 'POST', '/cashier/cashier/payment', {
    payment_method: 'pix',
    amount,
    currency: 'BRL',
    country: 'BRA',
    customer,
  });
const status = (id: string) => callAs(stack, merchant.apiKey, 'GET', `/cashier/cashier/status/${merchant.merchantId}/${id}`);
const stored = async (id: string) => (await paymentDeps().store.getPayment(id))!;
const hook = (id: string, type: string) => receiver.waitFor(1, 15_000, (r) => r.body?.event === type && r.body?.payment_id === id);

describe('a PSP that refuses connections', () => {
  it('the payment is made at the next PSP under its own txid, paid there, settled by its webhook, refunded there', async () => {
    await psp.outage('refuse');
    const r = await direct(25);
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    const txid2 = txidOf(id, 2);
    expect(txid2).toMatch(/^a2[0-9a-f]{32}$/);
    expect(efi.cob(txid2)).toMatchObject({ status: 'ATIVA', valor: { original: '25.00' }, chave: efi.pixKey });
    expect(r.body).toMatchObject({
      status: 'pending',
      pix_code: efi.cob(txid2)?.pixCopiaECola,
      provider_attempts: [
        { provider: 'api_pix', outcome: 'failed', failure_code: 'provider_unreachable' },
        { provider: 'efi', outcome: 'pending' },
      ],
    });
    expect(psp.cob(txidOf(id))).toBeUndefined();
    expect(await stored(id)).toMatchObject({ provider: { name: 'efi', reference: txid2, attempt: 2 } });

    const paid = await efi.pay(txid2);
    expect(paid.callbackStatus).toBe(200);
    const [success] = await hook(id, 'payment.success');
    expect(verifyWebhook(success!.rawBody, success!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
    expect((await status(id)).body).toMatchObject({
      status: 'success',
      provider_attempts: [
        { provider: 'api_pix', outcome: 'failed', failure_code: 'provider_unreachable' },
        { provider: 'efi', outcome: 'succeeded' },
      ],
    });

    efi.setDevolucaoOutcome('DEVOLVIDO');
    const refund = await callAs(stack, merchant.apiKey, 'POST', `/api/v1/payments/${id}/refunds`, { amount: 10 });
    expect(refund.status).toBe(200);
    await receiver.waitFor(1, 20_000, (h) => h.body?.event === 'refund.succeeded' && h.body?.refund_id === refund.body.refund_id);
    // The devolução went to Efí, for the Pix it received; none to the PSP that never held the payment.
    expect(efi.requests.some((q) => q.method === 'PUT' && q.path.includes(`/v2/pix/${paid.endToEndId}/devolucao/`))).toBe(true);
    expect(psp.requests.some((q) => q.path.includes('/devolucao/'))).toBe(false);
    await expectLedgerEqualsBalance(stack, merchant, 'BRL');
  });
});

describe('never a failover when the first PSP may hold the charge', () => {
  it('a lost answer: the read-back finds the cob, and the payment goes on with it', async () => {
    psp.failNext('putCob', { lost: true });
    const r = await direct(26);
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(r.body).toMatchObject({
      status: 'pending',
      pix_code: psp.cob(txidOf(id))?.pixCopiaECola,
      provider_attempts: [{ provider: 'api_pix', outcome: 'pending' }],
    });
    expect(efi.cob(txidOf(id, 2))).toBeUndefined();
  });

  it('a hang whose read-back hangs too: 502 naming the payment, processing at the first PSP, nothing at the second', async () => {
    await psp.outage('hang');
    const r = await direct(27);
    expect(r.status).toBe(502);
    expect(r.body.error_code).toBe('provider_unavailable');
    const id = r.body.payment_id as string;
    expect(await stored(id)).toMatchObject({ status: 'processing', provider: { name: 'api_pix', reference: txidOf(id) } });
    expect(efi.cob(txidOf(id, 2))).toBeUndefined();
  });
});

describe('a late success at the abandoned PSP', () => {
  it('5xx then a read-back that finds nothing: failover, the txid watched; a cob landing late and paid is returned in full', async () => {
    psp.failNext('putCob', { status: 500 }, 2);
    psp.setDevolucaoOutcome('DEVOLVIDO');
    const r = await direct(28);
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(r.body.provider_attempts).toEqual([
      { provider: 'api_pix', outcome: 'failed', failure_code: 'provider_no_answer' },
      { provider: 'efi', outcome: 'pending' },
    ]);
    // The first request lands after all (as if it had been queued at the PSP), and someone pays that cob.
    const late = apiPixConnectors(parseProvidersConfig({ api_pix: psp.apiPixConfig(TOKEN) }, 'test').api_pix!);
    const s = await stored(id);
    await late.pix.createCharge({
      paymentId: id,
      reference: txidOf(id),
      amountMinor: 2800,
      merchantName: 'Loja Roteada',
      createdAt: s.created_at,
      expiresAt: s.expires_at ?? s.created_at,
    });
    late.client.close();
    const paidLate = await psp.pay(txidOf(id), { callback: false });

    const deps = paymentDeps();
    const result = await reconcileHeldPayments(deps, new Date(Date.now() + 120_000));
    expect(result.undone).toBeGreaterThanOrEqual(1);
    const devolucao = psp.requests.find((q) => q.method === 'PUT' && q.path.includes(`/pix/${paidLate.endToEndId}/devolucao/`));
    expect(devolucao?.body).toMatchObject({ valor: '28.00' });
    // Once: a second run finds nothing due for it.
    await reconcileHeldPayments(deps, new Date(Date.now() + 240_000));
    expect(psp.requests.filter((q) => q.method === 'PUT' && q.path.includes(`/pix/${paidLate.endToEndId}/devolucao/`))).toHaveLength(1);
    // The payment itself is untouched: still pending at Efí, where the shopper was sent.
    expect(await stored(id)).toMatchObject({ status: 'pending', provider: { name: 'efi' } });
  });
});

describe('providers stats', () => {
  it('per provider and kind: attempts, approvals, approval and no-answer rates, latency, the breaker as last reported', async () => {
    const out: string[] = [];
    const io = { out: (l: string) => void out.push(l), err: (l: string) => void out.push(l) };
    expect(await providersStats({ since: '1h', kind: 'pix', json: true }, io)).toBe(0);
    const { providers } = JSON.parse(out.join('\n')) as { providers: ProviderStatsRow[] };
    const apiPix = providers.find((r) => r.provider === 'api_pix')!;
    const efiRow = providers.find((r) => r.provider === 'efi')!;
    // api_pix: refused (no answer), lost-then-found (approved), hung (its payment failed unanswered by the job run in the
    // late-success test: no answer), 5xx twice then nothing found (no answer).
    expect(apiPix).toMatchObject({ kind: 'pix', no_answer: 3, approved: 1, attempts: 4, approval_rate: 0.25 });
    expect(apiPix.no_answer_rate).toBeGreaterThan(0);
    // efi: both payments failed over to it took their charge (one paid); its calls' latency is kept.
    expect(efiRow).toMatchObject({ kind: 'pix', attempts: 2, approved: 2, approval_rate: 1, no_answer_rate: 0 });
    expect(efiRow.p50_ms).toEqual(expect.any(Number));
    expect(efiRow.p99_ms).toBeGreaterThanOrEqual(efiRow.p50_ms!);
    out.length = 0;
    expect(await providersStats({ since: '1h' }, io)).toBe(0);
    expect(out.join('\n')).toMatch(/pix\s+efi\s+2\s+2\s+100\.0%\s+0\.0%/);
    expect(await providersStats({ since: 'an hour' }, io)).toBe(2);
  });
});
