/**
 * Live bank-transfer payouts through dLocal payouts v3 (issue 32), over real HTTP on the local engines against the
 * fake dLocal (OAuth2 tokens that expire, every request checked against our schemas of dLocal's pages): Argentina
 * CBU paid by a signed notification (read back first), Colombia rejected and credited back once through duplicate
 * and out-of-order notifications, Peru on hold then paid, a forged signature refused with nothing read, a create
 * whose answer was lost resolved by reading it back with one create only, a 5xx and a hang left processing until
 * the resume job settles them, and a missed notification found by the job.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { providersCheck } from '../../bin/cli/providers';
import { payoutDeps } from '../../shared/wiring';
import { externalIdOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';
import { verifyWebhook } from '../support/merchant-verify';
import type { Receiver } from '../support/receiver';
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

let dlocal: FakeDlocal;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;
let live: LiveStage;

beforeAll(async () => {
  dlocal = await startFakeDlocal({ hangMs: 10_000 });
  live = await startLiveStage(
    { dlocal: dlocal.dlocalConfig({ timeouts: { connect_ms: 1000, total_ms: 1500 } }) },
    { merchantName: 'Tienda en Vivo', receiver: true },
  );
  ({ stack, receiver, merchant } = live);
  await fundLive(merchant.merchantId, 'ARS', 1_000_000_000);
  await fundLive(merchant.merchantId, 'COP', 10_000_000_000);
  await fundLive(merchant.merchantId, 'PEN', 10_000_000);
});

afterEach(() => {
  expect(dlocal.violations).toEqual([]);
});

afterAll(async () => {
  await live?.stop();
  await dlocal?.close();
});

const call = (method: string, path: string, body?: unknown) => callAs(stack, merchant.apiKey, method, path, body);
const CBU = '2850590940090418135201';
const argentina = (amount = 1500) =>
  call('POST', '/api/v1/payout', {
    method_code: 'svc-mt-31',
    amount,
    currency: 'ARS',
    description: 'Liquidación 77',
    beneficiary: {
      name: 'Lucía Gómez',
      document: '20123456786',
      document_type: 'CUIT',
      instant_transfer_key: CBU,
      instant_transfer_type: 'cbu',
    },
  });
const colombia = (amount = 50_000) =>
  call('POST', '/api/v1/payout', {
    method_code: 'svc-mt-32',
    amount,
    currency: 'COP',
    beneficiary: {
      name: 'Carlos Ruiz',
      document: '1020304050',
      document_type: 'CC',
      bank_code: '007',
      account_number: '12345678901',
      account_type: 'savings',
    },
  });
const peru = (amount = 500) =>
  call('POST', '/api/v1/payout', {
    method_code: 'svc-mt-6',
    amount,
    currency: 'PEN',
    beneficiary: {
      name: 'Luis Alberto Huamán',
      document: '41234567',
      document_type: 'DNI',
      bank_code: '002',
      account_number: '19312345678012',
      account_type: 'checking',
    },
  });
const get = async (id: string) => (await call('GET', `/api/v1/payout/${id}`)).body;
const balance = async (currency: string): Promise<number> => {
  const r = await call('GET', '/api/v1/balance');
  const b = (r.body.balances as Array<{ currency: string; available: number }>).find((x) => x.currency === currency);
  return Math.round((b?.available ?? 0) * 100);
};
const hook = async (id: string, event: string) => {
  const [h] = await receiver.waitFor(1, 15_000, (r) => r.body?.event === event && r.body?.payout_id === id);
  expect(verifyWebhook(h!.rawBody, h!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
  return h!.body as Record<string, unknown>;
};
const hooksFor = (id: string) => receiver.received.filter((r) => r.body?.payout_id === id).map((r) => r.body?.event);
const readBacks = (externalId: string) =>
  dlocal.requests.filter((r) => r.method === 'GET' && r.path === `/payouts/v3?external_id=${externalId}`).length;
const idOf = (message: unknown) => /po_[A-Za-z0-9_-]{22}/.exec(String(message))![0];
const credits = async (id: string, currency: string) =>
  (await ledger(merchant, currency, 'live')).filter((e) => e.object_id === id).map((e) => Number(e.amount_minor));

describe('live bank-transfer payouts through dLocal', () => {
  it('providers check gets a payouts token and queries a payout', async () => {
    const lines: string[] = [];
    const io = { out: (l: string) => void lines.push(l), err: (l: string) => void lines.push(l) };
    expect(await providersCheck({ providers: process.env.PROVIDERS_FILE }, io)).toBe(0);
    expect(lines.join('\n')).toContain('dlocal: payouts token obtained');
  });

  it('Argentina CBU: created by external_id after the debit, paid once a signed notification is read back', async () => {
    const before = await balance('ARS');
    const r = await argentina();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'processing' });
    const id = r.body.payout_id as string;
    const externalId = externalIdOf(id);
    const sent = dlocal.payout(externalId)!.request;
    expect(sent).toMatchObject({
      external_id: externalId,
      country: 'AR',
      payment_method_id: 'BANK_TRANSFER',
      amount: 1500,
      currency: 'ARS',
      notification_url: `${stack.baseUrl}/providers/dlocal/payouts`,
      beneficiary: { document: { type: 'CUIT', id: '20123456786' }, bank_account: { account: CBU } },
    });
    expect(await balance('ARS')).toBe(before - 150_000);
    expect(JSON.stringify(await get(id))).not.toContain(CBU);

    dlocal.setPayoutStatus(externalId, 'PAID');
    const seen = readBacks(externalId);
    expect(await dlocal.notifyPayout(externalId)).toMatchObject({ status: 200 });
    expect(readBacks(externalId)).toBe(seen + 1);
    expect(await get(id)).toMatchObject({ status: 'completed' });
    expect(await hook(id, 'payout.completed')).toMatchObject({ status: 'completed', amount: 1500, currency: 'ARS' });
    // Again, and a stale PENDING copy: nothing moves.
    expect((await dlocal.notifyPayout(externalId)).status).toBe(200);
    expect((await dlocal.notifyPayout(externalId, { status: 'PENDING' })).status).toBe(200);
    expect(await get(id)).toMatchObject({ status: 'completed' });
    await new Promise((res) => setTimeout(res, 300));
    expect(hooksFor(id).filter((e) => e === 'payout.completed')).toHaveLength(1);
    expect(dlocal.payoutCreates(externalId)).toBe(1);
    expect(await balance('ARS')).toBe(before - 150_000);
    await expectLedgerEqualsBalance(stack, merchant, 'ARS');
  });

  it('Colombia rejected: failed with our code, credited back once through duplicate and out-of-order notifications', async () => {
    const before = await balance('COP');
    const id = (await colombia()).body.payout_id as string;
    const externalId = externalIdOf(id);
    expect(await balance('COP')).toBe(before - 5_000_000);
    dlocal.setPayoutStatus(externalId, 'REJECTED', 'ERROR_ACCOUNT_INCORRECT');
    expect((await dlocal.notifyPayout(externalId)).status).toBe(200);
    expect(await get(id)).toMatchObject({ status: 'failed', failure_reason: 'invalid_account' });
    const failed = await hook(id, 'payout.failed');
    expect(JSON.stringify(failed)).not.toMatch(/ERROR_ACCOUNT|rejected_by_provider|dlocal/i);
    expect((await dlocal.notifyPayout(externalId)).status).toBe(200);
    // A late PAID claim the read-back contradicts: nothing moves.
    expect((await dlocal.notifyPayout(externalId, { status: 'PAID' })).status).toBe(200);
    expect(await get(id)).toMatchObject({ status: 'failed' });
    expect(await balance('COP')).toBe(before);
    expect((await credits(id, 'COP')).sort((a, b) => a - b)).toEqual([-5_000_000, 5_000_000]);
    await expectLedgerEqualsBalance(stack, merchant, 'COP');
  });

  it('Peru on hold stays processing (on hold in its provider details), then paid', async () => {
    const id = (await peru()).body.payout_id as string;
    const externalId = externalIdOf(id);
    dlocal.setPayoutStatus(externalId, 'ON_HOLD');
    expect((await dlocal.notifyPayout(externalId)).status).toBe(200);
    expect((await get(id)).status).toBe('processing');
    expect((await payoutDeps().store.get(id))?.provider?.details).toMatchObject({ on_hold: 'yes' });
    dlocal.setPayoutStatus(externalId, 'PAID');
    expect((await dlocal.notifyPayout(externalId)).status).toBe(200);
    expect(await get(id)).toMatchObject({ status: 'completed' });
    await hook(id, 'payout.completed');
    await expectLedgerEqualsBalance(stack, merchant, 'PEN');
  });

  it('a forged signature is 401 and reads nothing; a claim dLocal does not show yet (signed or not) is a 502; nothing moves', async () => {
    const before = await balance('ARS');
    const id = (await argentina(200)).body.payout_id as string;
    const externalId = externalIdOf(id);
    const seen = dlocal.requests.length;
    const forged = await dlocal.notifyPayout(externalId, { sign: 'forged', status: 'PAID' });
    expect(forged.status).toBe(401);
    expect(dlocal.requests.length).toBe(seen);
    const early = await dlocal.notifyPayout(externalId, { status: 'PAID' });
    expect(early.status).toBe(502);
    // Unsigned (dLocal's v3 page documents no signature on payout notifications): only a prompt to read the payout
    // back, so a claim dLocal does not show moves nothing either.
    const unsigned = await dlocal.notifyPayout(externalId, { sign: 'none', status: 'PAID' });
    expect(unsigned.status).toBe(502);
    expect((await get(id)).status).toBe('processing');
    expect(await balance('ARS')).toBe(before - 20_000);
    // A body that is not a payout: 400.
    const text = JSON.stringify({ nope: true });
    const bad = await fetch(`${stack.baseUrl}/providers/dlocal/payouts`, {
      method: 'POST',
      headers: dlocal.signedNotificationHeaders(text),
      body: text,
    });
    expect(bad.status).toBe(400);
    dlocal.setPayoutStatus(externalId, 'PAID');
    expect((await dlocal.notifyPayout(externalId)).status).toBe(200);
    expect((await get(id)).status).toBe('completed');
    await expectLedgerEqualsBalance(stack, merchant, 'ARS');
  });

  it('dLocal refuses the payout for our balance there (514): 422, failed and credited back with our code, ops paged', async () => {
    const before = await balance('ARS');
    const published: string[] = [];
    const publish = Metrics.prototype.publishStoredMetrics;
    const spy = jest.spyOn(Metrics.prototype, 'publishStoredMetrics').mockImplementation(function (this: Metrics) {
      if (this.hasStoredMetrics()) published.push(JSON.stringify(this.serializeMetrics()));
      return publish.call(this);
    });
    dlocal.failNext('payouts', { status: 400, code: 514 });
    let r: Awaited<ReturnType<typeof argentina>>;
    try {
      r = await argentina(400);
    } finally {
      spy.mockRestore();
    }
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('PROVIDER_REJECTED');
    const id = idOf(r.body.error.message);
    expect(await get(id)).toMatchObject({ status: 'failed', failure_reason: 'provider_balance_insufficient' });
    expect(await hook(id, 'payout.failed')).toMatchObject({ failure_reason: 'provider_balance_insufficient' });
    expect(await balance('ARS')).toBe(before);
    const page = published.map((t) => JSON.parse(t) as Record<string, unknown>).find((e) => 'PayoutProviderBalanceLow' in e);
    expect(page).toMatchObject({ provider: 'dlocal', PayoutProviderBalanceLow: 1 });
    await expectLedgerEqualsBalance(stack, merchant, 'ARS');
  });

  it('a create whose answer was lost: 502; the resume job reads the payout back by external_id and never creates it again', async () => {
    dlocal.failNext('payouts', { hangAfter: true });
    const r = await argentina(300);
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('PROVIDER_UNAVAILABLE');
    const id = idOf(r.body.error.message);
    const externalId = externalIdOf(id);
    expect((await get(id)).status).toBe('processing');
    expect(dlocal.payoutCreates(externalId)).toBe(1);
    const asked = readBacks(externalId);
    await resumeSettlementsNow();
    await until(
      async () => readBacks(externalId),
      (n) => n > asked,
      'the read-back',
    );
    await new Promise((res) => setTimeout(res, 200));
    expect(dlocal.payoutCreates(externalId)).toBe(1);
    // Paid at dLocal, its notification never comes: the next run reads it back and completes it.
    dlocal.setPayoutStatus(externalId, 'PAID');
    await resumeSettlementsNow();
    await until(
      () => get(id),
      (p) => p.status === 'completed',
      'completed',
    );
    await hook(id, 'payout.completed');
    expect(dlocal.payoutCreates(externalId)).toBe(1);
    await expectLedgerEqualsBalance(stack, merchant, 'ARS');
  });

  it('a 5xx or a hang on the create leaves the payout processing; the resume job creates the same payout once', async () => {
    for (const fault of [{ status: 503 }, { hang: true }] as const) {
      dlocal.failNext('payouts', fault);
      const r = await colombia(20_000);
      expect(r.status).toBe(502);
      const id = idOf(r.body.error.message);
      const externalId = externalIdOf(id);
      expect(dlocal.payout(externalId)).toBeUndefined();
      expect((await get(id)).status).toBe('processing');
      await resumeSettlementsNow();
      await until(
        async () => dlocal.payout(externalId),
        (p) => p !== undefined,
        'the payout created by the resume job',
      );
      expect(dlocal.payout(externalId)?.request).toMatchObject({ amount: 20_000, currency: 'COP', country: 'CO' });
      const asked = readBacks(externalId);
      await resumeSettlementsNow();
      await until(
        async () => readBacks(externalId),
        (n) => n > asked,
        'the read-back',
      );
      await new Promise((res) => setTimeout(res, 200));
      expect(dlocal.payoutCreates(externalId)).toBe(1);
      dlocal.setPayoutStatus(externalId, 'PAID');
      await resumeSettlementsNow();
      await until(
        () => get(id),
        (p) => p.status === 'completed',
        'completed by the job',
      );
    }
    await expectLedgerEqualsBalance(stack, merchant, 'COP');
  });
});
