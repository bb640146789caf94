/**
 * Live PIX payouts routed between Efí and dLocal (issue 42, DESIGN.md 9.2), on the local engines against the fake Efí
 * and the fake dLocal: Efí refusing connections sends the payout to dLocal under its attempt-2 reference (committed
 * first, the amount debited once), dLocal's signed notification completes it; Efí hanging never fails over (a PIX
 * sent cannot be called back): 502, processing at Efí, nothing at dLocal. Ledger = balance throughout.
 */
import { randomBytes } from 'node:crypto';
import { externalIdOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { breakers } from '../../shared/application/routing';
import { payoutDeps } from '../../shared/wiring';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';
import { startFakeEfi, type FakeEfi } from '../support/fake-efi';
import { callAs, expectLedgerEqualsBalance, fundLive, startLiveStage, type LiveMerchant, type LiveStage } from '../support/live-stage';
import type { Receiver } from '../support/receiver';
import type { TestStack } from '../support/test-stack';

const TOKEN = randomBytes(24).toString('base64url');
const timeouts = { connect_ms: 1000, total_ms: 1500 };
let efi: FakeEfi;
let dlocal: FakeDlocal;
let live: LiveStage;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;

beforeAll(async () => {
  [efi, dlocal] = await Promise.all([startFakeEfi({ hangMs: 5_000 }), startFakeDlocal({ hangMs: 5_000 })]);
  live = await startLiveStage(
    {
      efi: { ...efi.efiConfig(TOKEN), timeouts },
      dlocal: dlocal.dlocalConfig({ timeouts }),
      routing: { pix_payout: { BRA: { providers: ['efi', 'dlocal'] } } },
    },
    { merchantName: 'Loja Roteada', receiver: true },
  );
  ({ stack, receiver, merchant } = live);
  efi.setWebhookUrl(`${stack.baseUrl}/providers/efi/${TOKEN}`);
  await fundLive(merchant.merchantId, 'BRL', 10_000_000);
});

beforeEach(() => breakers.reset());

afterEach(async () => {
  await efi.outage(null);
  expect(efi.violations).toEqual([]);
  expect(dlocal.violations).toEqual([]);
});

afterAll(async () => {
  await live?.stop();
  await Promise.all([efi?.close(), dlocal?.close()]);
});

const call = (method: string, path: string, body?: unknown) => callAs(stack, merchant.apiKey, method, path, body);
const payout = (amount: number) =>
  call('POST', '/api/v1/payout', {
    method_code: 'svc-mt-5',
    amount,
    currency: 'BRL',
    beneficiary: {
      name: 'Ana Silva',
      document: '52998224725',
      document_type: 'CPF',
      instant_transfer_key: 'ana.silva@example.com',
      instant_transfer_type: 'email',
    },
  });
const balance = async (): Promise<number> => {
  const r = await call('GET', '/api/v1/balance');
  const row = (r.body.balances as Array<{ currency: string; available: number }>).find((b) => b.currency === 'BRL');
  return Math.round((row?.available ?? 0) * 100);
};

it('Efí refusing connections: dLocal pays it under its attempt-2 reference, its notification completes it, debited once', async () => {
  await efi.outage('refuse');
  const before = await balance();
  const r = await payout(120.5);
  expect(r.status).toBe(200);
  const id = r.body.payout_id as string;
  const reference = `${externalIdOf(id)}a2`;
  expect(dlocal.payout(reference)?.request).toMatchObject({ external_id: reference, amount: 120.5, currency: 'BRL', country: 'BR' });
  const stored = await payoutDeps().store.get(id);
  expect(stored).toMatchObject({ status: 'processing', provider: { name: 'dlocal', reference, attempt: 2 } });
  expect(stored?.ended_attempts).toEqual([
    expect.objectContaining({ provider: 'efi', outcome: 'failed', failure_code: 'provider_unreachable' }),
  ]);

  dlocal.setPayoutStatus(reference, 'PAID');
  expect(await dlocal.notifyPayout(reference)).toMatchObject({ status: 200 });
  expect((await call('GET', `/api/v1/payout/${id}`)).body).toMatchObject({ status: 'completed' });
  await receiver.waitFor(1, 15_000, (h) => h.body?.event === 'payout.completed' && h.body?.payout_id === id);
  expect(dlocal.payoutCreates(reference)).toBe(1);
  expect(await balance()).toBe(before - 12_050);
  await expectLedgerEqualsBalance(stack, merchant, 'BRL');
});

it('Efí taking the send and not answering: never a failover; 502 naming the payout, processing at Efí, nothing at dLocal', async () => {
  efi.failNext('send', { hang: true });
  const r = await payout(33);
  expect(r.status).toBe(502);
  const id = String(JSON.stringify(r.body).match(/po_[A-Za-z0-9_-]+/)?.[0]);
  expect(await payoutDeps().store.get(id)).toMatchObject({ status: 'processing', provider: { name: 'efi' } });
  expect(dlocal.payout(`${externalIdOf(id)}a2`)).toBeUndefined();
  expect(dlocal.payout(externalIdOf(id))).toBeUndefined();
  await expectLedgerEqualsBalance(stack, merchant, 'BRL');
});
