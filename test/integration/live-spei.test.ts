/**
 * Live SPEI payouts through STP (issue 24), over real HTTP on the local engines against the fake STP (every
 * request checked against STP's rules, its firma verified): completed, cancelled and returned after completion
 * (balance, ledger, signed webhooks each time), duplicate, out-of-order and forged state changes, a refused
 * order, and registrations whose answer never came resolved by the query without a second order.
 */
import { randomBytes } from 'node:crypto';
import { claveRastreoOf } from '../../shared/adapters/providers/stp/stp.transformers';
import { startFakeStp, type FakeStp } from '../support/fake-stp';
import { verifyWebhook } from '../support/merchant-verify';
import type { Receiver } from '../support/receiver';
import { callAs, fundLive, startLiveStage, type LiveMerchant, type LiveStage, until, resumeSettlementsNow } from '../support/live-stage';
import type { TestStack } from '../support/test-stack';
import { ledger } from '../support/payments';

const TOKEN = randomBytes(24).toString('base64url');
const CLABE = '072691004495711499';
const CURP = 'GODE561231HDFRRN00';
let stp: FakeStp;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;
let live: LiveStage;

beforeAll(async () => {
  stp = await startFakeStp({ hangMs: 10_000 });
  live = await startLiveStage(
    { stp: { ...stp.stpConfig(TOKEN), timeouts: { connect_ms: 1000, total_ms: 1500 } } },
    { merchantName: 'Tienda en Vivo', receiver: true },
  );
  ({ stack, receiver, merchant } = live);
  stp.setCallbackBase(`${stack.baseUrl}/providers/stp/${TOKEN}`);
  // The live MXN balance the payouts draw on (a live balance is otherwise funded by pay-ins).
  await fundLive(merchant.merchantId, 'MXN', 10_000_000);
});

afterEach(() => {
  expect(stp.violations).toEqual([]);
});

afterAll(async () => {
  await live?.stop();
  await stp?.close();
});

const call = (method: string, path: string, body?: unknown) => callAs(stack, merchant.apiKey, method, path, body);
const payout = (over: Record<string, unknown> = {}, beneficiary: Record<string, unknown> = {}) =>
  call('POST', '/api/v1/payout', {
    method_code: 'svc-mt-30',
    amount: 1234.5,
    currency: 'MXN',
    description: 'Pago proveedor 881',
    beneficiary: {
      name: 'María López Pérez',
      document: CURP,
      document_type: 'CURP',
      instant_transfer_key: CLABE,
      instant_transfer_type: 'clabe',
      ...beneficiary,
    },
    ...over,
  });
const get = async (id: string) => (await call('GET', `/api/v1/payout/${id}`)).body;
async function balance(): Promise<number> {
  const r = await call('GET', '/api/v1/balance');
  expect(r.status).toBe(200);
  const b = (r.body.balances as Array<{ currency: string; available: number }>).find((x) => x.currency === 'MXN');
  return Math.round((b?.available ?? 0) * 100);
}
/** The ledger's sum equals the balance the merchant reads. */
async function ledgerMatches() {
  const entries = await ledger(merchant, 'MXN', 'live');
  expect(entries.reduce((s, e) => s + Number(e.amount_minor), 0)).toBe(await balance());
  return entries;
}
const hook = async (id: string, event: string) => {
  const [h] = await receiver.waitFor(1, 15_000, (r) => r.body?.event === event && r.body?.payout_id === id);
  expect(verifyWebhook(h!.rawBody, h!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
  return h!.body as Record<string, unknown>;
};
const hooksFor = (id: string) => receiver.received.filter((r) => r.body?.payout_id === id).map((r) => r.body?.event);
const queries = (clave: string) =>
  stp.requests.filter((r) => r.path.endsWith('/consOrdEnvRastreo') && (r.body as { claveRastreo?: string }).claveRastreo === clave).length;

describe('live SPEI payouts through STP', () => {
  it('registers the signed order after committing the debit, and completes when STP settles it', async () => {
    const before = await balance();
    const r = await payout();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'processing' });
    const id = r.body.payout_id as string;
    const clave = claveRastreoOf(id);
    expect(stp.order(clave)?.request).toMatchObject({
      claveRastreo: clave,
      cuentaBeneficiario: CLABE,
      institucionContraparte: '40072',
      nombreBeneficiario: 'Maria Lopez Perez',
      rfcCurpBeneficiario: CURP,
      monto: 1234.5,
      conceptoPago: 'Pago proveedor 881',
      tipoCuentaBeneficiario: 40,
      tipoPago: 1,
    });
    expect(await balance()).toBe(before - 123450);
    // The merchant sees the CLABE masked; the order's full account is never on the wire.
    const shown = await get(id);
    expect(shown.beneficiary.instant_transfer_key).toBe('**************1499');
    expect(JSON.stringify(shown)).not.toContain(CLABE);
    expect(shown).not.toHaveProperty('provider');

    const settled = await stp.settle(clave);
    expect(settled).toEqual({ status: 200, body: { mensaje: 'recibido' } });
    expect(await get(id)).toMatchObject({ status: 'completed', completed_at: expect.any(String) });
    expect(await hook(id, 'payout.completed')).toMatchObject({ status: 'completed', amount: 1234.5, currency: 'MXN' });
    expect(await balance()).toBe(before - 123450);
    await ledgerMatches();

    // The same change again, and an out-of-order cancellation of the settled order: nothing moves.
    const order = stp.order(clave)!;
    const change = { id: order.id, empresa: stp.empresa, folioOrigen: clave, causaDevolucion: null, tsLiquidacion: order.tsLiquidacion };
    expect(await stp.sendEstado({ ...change, estado: 'LIQUIDACION' })).toEqual({ status: 200, body: { mensaje: 'recibido' } });
    expect(await stp.sendEstado({ ...change, estado: 'CANCELACION' })).toEqual({ status: 200, body: { mensaje: 'recibido' } });
    expect((await get(id)).status).toBe('completed');
    expect(await balance()).toBe(before - 123450);
    await new Promise((res) => setTimeout(res, 300));
    expect(hooksFor(id).filter((e) => e === 'payout.completed')).toHaveLength(1);
    expect(hooksFor(id)).not.toContain('payout.failed');
    await ledgerMatches();
  });

  it('a change naming our order by STP’s id alone (folioOrigen empty, as STP sends it for an order without one) settles it', async () => {
    const before = await balance();
    const id = (await payout({ amount: 321 })).body.payout_id as string;
    const clave = claveRastreoOf(id);
    const order = stp.order(clave)!;
    // Our orders carry a folioOrigen of ours now, so STP's change names them both ways.
    expect(order.request.folioOrigen).toBe(clave);
    // The change exactly as STP posts it for an order registered without folioOrigen: its own id, folio empty.
    await stp.settle(clave, { callback: false });
    const change = { id: order.id, empresa: stp.empresa, folioOrigen: '', causaDevolucion: null, tsLiquidacion: order.tsLiquidacion };
    expect(await stp.sendEstado({ ...change, estado: 'LIQUIDACION' })).toEqual({ status: 200, body: { mensaje: 'recibido' } });
    expect(await get(id)).toMatchObject({ status: 'completed' });
    expect(await hook(id, 'payout.completed')).toMatchObject({ status: 'completed', amount: 321 });
    await stp.returnOrder(clave, { callback: false });
    expect(await stp.sendEstado({ ...change, estado: 'DEVOLUCION', causaDevolucion: 1 })).toEqual({
      status: 200,
      body: { mensaje: 'recibido' },
    });
    expect(await get(id)).toMatchObject({ status: 'refunded', failure_reason: 'returned_by_beneficiary_bank' });
    expect(await hook(id, 'payout.refunded')).toMatchObject({ status: 'refunded' });
    expect(await balance()).toBe(before);
    // An id STP never gave one of our orders, folio empty: answered, nothing read back, nothing moved.
    const seen = stp.requests.length;
    expect(await stp.sendEstado({ ...change, id: 987654321, estado: 'CANCELACION' })).toEqual({
      status: 200,
      body: { mensaje: 'recibido' },
    });
    expect(stp.requests.length).toBe(seen);
    await ledgerMatches();
  });

  it('a cancelled order fails the payout and credits it back, with payout.failed', async () => {
    const before = await balance();
    const id = (await payout({ amount: 250 })).body.payout_id as string;
    expect(await balance()).toBe(before - 25000);
    expect(await stp.cancel(claveRastreoOf(id))).toEqual({ status: 200, body: { mensaje: 'recibido' } });
    expect(await get(id)).toMatchObject({ status: 'failed', failure_reason: 'cancelled_by_bank' });
    expect(await hook(id, 'payout.failed')).toMatchObject({ status: 'failed', failure_reason: 'cancelled_by_bank' });
    expect(await balance()).toBe(before);
    // A late settlement claim for the cancelled order is not what STP holds: nothing changes.
    const order = stp.order(claveRastreoOf(id))!;
    await stp.sendEstado({ id: order.id, empresa: stp.empresa, folioOrigen: claveRastreoOf(id), estado: 'LIQUIDACION' });
    expect((await get(id)).status).toBe('failed');
    expect(await balance()).toBe(before);
    await ledgerMatches();
  });

  it('an order returned after it settled is refunded (SPEC), credited back once, with payout.refunded', async () => {
    const before = await balance();
    const id = (await payout({ amount: 99.99 })).body.payout_id as string;
    const clave = claveRastreoOf(id);
    await stp.settle(clave);
    expect((await get(id)).status).toBe('completed');
    expect(await stp.returnOrder(clave)).toEqual({ status: 200, body: { mensaje: 'recibido' } });
    expect(await get(id)).toMatchObject({ status: 'refunded', failure_reason: 'returned_by_beneficiary_bank' });
    expect(await hook(id, 'payout.refunded')).toMatchObject({ status: 'refunded' });
    expect(await balance()).toBe(before);
    // STP sends the return again: still one credit.
    const order = stp.order(clave)!;
    await stp.sendEstado({ id: order.id, empresa: stp.empresa, folioOrigen: clave, estado: 'DEVOLUCION', causaDevolucion: 1 });
    expect(await balance()).toBe(before);
    const credits = (await ledgerMatches()).filter((e) => e.object_id === id);
    expect(credits.map((e) => Number(e.amount_minor)).sort((a, b) => a - b)).toEqual([-9999, 9999]);
  });

  it('forged or unconfirmed changes move nothing: wrong token 404 reading nothing; a claim STP does not show is a 502', async () => {
    const before = await balance();
    const id = (await payout({ amount: 10 })).body.payout_id as string;
    const clave = claveRastreoOf(id);
    const seen = stp.requests.length;
    const body = { id: stp.order(clave)!.id, empresa: stp.empresa, folioOrigen: clave, estado: 'LIQUIDACION' };
    const wrong = await stp.sendEstado(body, { token: 'x'.repeat(40) });
    expect(wrong.status).toBe(404);
    expect(stp.requests.length).toBe(seen);
    // The right token, but STP still holds the order in flight: the settlement claim is not applied, and STP is
    // asked to send it again (502) so that a real change its query does not show yet is never dropped.
    const early = await stp.sendEstado(body);
    expect(early.status).toBe(502);
    expect((early.body as { error: { code: string } }).error.code).toBe('PROVIDER_UNAVAILABLE');
    expect((await get(id)).status).toBe('processing');
    expect(await balance()).toBe(before - 1000);
    // Not STP's shape, another company, an order that is not ours: 400, 400, 200 and nothing read back for the last.
    expect((await stp.sendEstado({ nope: true })).status).toBe(400);
    expect((await stp.sendEstado({ ...body, empresa: 'OTRA' })).status).toBe(400);
    expect((await stp.sendEstado({ ...body, folioOrigen: 'CR1564969083' })).status).toBe(200);
    await stp.settle(clave);
    expect((await get(id)).status).toBe('completed');
    // A return claimed while STP shows the order only settled: not applied, sent again later.
    const ret = await stp.sendEstado({ ...body, estado: 'DEVOLUCION', causaDevolucion: 1 });
    expect(ret.status).toBe(502);
    expect((await get(id)).status).toBe('completed');
    await ledgerMatches();
  });

  it('STP’s refusal: 422, failed and credited back, payout.failed; a bank not in SPEI: 400, nothing written', async () => {
    const before = await balance();
    stp.refuseAccount('012180001234567899', -7);
    const r = await payout({ amount: 50 }, { instant_transfer_key: '012180001234567899' });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('PROVIDER_REJECTED');
    const id = /po_[A-Za-z0-9_-]{22}/.exec(r.body.error.message as string)![0];
    expect(await get(id)).toMatchObject({ status: 'failed', failure_reason: 'invalid_account' });
    expect(await hook(id, 'payout.failed')).toMatchObject({ failure_reason: 'invalid_account' });
    expect(await balance()).toBe(before);
    expect(r.body.error.message).not.toContain('012180001234567899');

    const entries = (await ledgerMatches()).length;
    const bad = await payout({ amount: 50 }, { instant_transfer_key: '999180001234567893' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_BENEFICIARY');
    expect((await ledgerMatches()).length).toBe(entries);
  });

  it('a registration whose answer was lost: 502 naming the payout; the resume job finds the order, sends no second', async () => {
    const before = await balance();
    stp.failNext('registra', { hangAfter: true });
    const r = await payout({ amount: 75 });
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('PROVIDER_UNAVAILABLE');
    const id = /po_[A-Za-z0-9_-]{22}/.exec(r.body.error.message as string)![0];
    const clave = claveRastreoOf(id);
    expect((await get(id)).status).toBe('processing');
    expect(await balance()).toBe(before - 7500);
    expect(stp.registrations(clave)).toBe(1);

    const asked = queries(clave);
    await resumeSettlementsNow();
    await until(
      async () => queries(clave),
      (n) => n > asked,
      'the order query',
    );
    await new Promise((res) => setTimeout(res, 200));
    expect(stp.registrations(clave)).toBe(1);
    expect((await get(id)).status).toBe('processing');

    // STP settles it and its callback never comes: the next resume reads it back and completes it.
    await stp.settle(clave, { callback: false });
    await resumeSettlementsNow();
    await until(
      () => get(id),
      (p) => p.status === 'completed',
      'completed',
    );
    await hook(id, 'payout.completed');
    expect(stp.registrations(clave)).toBe(1);
    await ledgerMatches();
  });

  it('a registration whose answer was lost: the read-back keeps STP’s order id, so a change naming only that id completes it', async () => {
    stp.failNext('registra', { hangAfter: true });
    const r = await payout({ amount: 64 });
    expect(r.status).toBe(502);
    const id = /po_[A-Za-z0-9_-]{22}/.exec(r.body.error.message as string)![0];
    const clave = claveRastreoOf(id);
    const order = stp.order(clave)!;
    const change = { id: order.id, empresa: stp.empresa, folioOrigen: '', estado: 'LIQUIDACION' };
    // Before any read-back we do not know STP's id of this order: the change finds nothing and moves nothing.
    await stp.settle(clave, { callback: false });
    expect((await stp.sendEstado(change)).status).toBe(200);
    expect((await get(id)).status).toBe('processing');
    // The resume job reads the order back (settled at STP): completed, and its id kept from the read-back.
    await resumeSettlementsNow();
    await until(
      () => get(id),
      (p) => p.status === 'completed',
      'completed',
    );
    await stp.returnOrder(clave, { callback: false });
    expect((await stp.sendEstado({ ...change, estado: 'DEVOLUCION', causaDevolucion: 1 })).status).toBe(200);
    expect(await get(id)).toMatchObject({ status: 'refunded' });
    expect(stp.registrations(clave)).toBe(1);
    await ledgerMatches();
  });

  it('a registration that never reached STP: the resume job finds no order and sends the same order once', async () => {
    stp.failNext('registra', { hang: true });
    const r = await payout({ amount: 80 });
    expect(r.status).toBe(502);
    const id = /po_[A-Za-z0-9_-]{22}/.exec(r.body.error.message as string)![0];
    const clave = claveRastreoOf(id);
    expect(stp.order(clave)).toBeUndefined();
    await resumeSettlementsNow();
    await until(
      async () => stp.order(clave),
      (o) => o !== undefined,
      'the order sent again',
    );
    expect(stp.registrations(clave)).toBe(1);
    expect(stp.order(clave)?.request).toMatchObject({ monto: 80, cuentaBeneficiario: CLABE, rfcCurpBeneficiario: CURP });
    // The resume job again while the order is in flight: it is read back, not sent a second time.
    const asked = queries(clave);
    await resumeSettlementsNow();
    await until(
      async () => queries(clave),
      (n) => n > asked,
      'the order query',
    );
    await new Promise((res) => setTimeout(res, 200));
    expect(stp.registrations(clave)).toBe(1);
    await stp.settle(clave);
    expect((await get(id)).status).toBe('completed');
    await ledgerMatches();
  });
});
