/**
 * Live SPEI pay-ins through STP (issue 24), over real HTTP on the local engines with the fake STP posting
 * deposits (abonos): a live SPEI payment shows its own CLABE under the platform's STP account and settles on
 * the matching deposit (balance, ledger, signed webhook), and only once STP's own query of received orders
 * (consultaOrden) shows it: a body alone, or a query that does not answer, is a 502 with nothing recorded; a
 * different amount is recorded, not settled; a deposit to an unknown CLABE, or to a payment already paid, is
 * recorded and answered with STP's return; redeliveries change nothing.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
import { buildClabe, isValidClabe } from '../../shared/domain/payments/clabe';
import { paymentDeps } from '../../shared/wiring';
import { startFakeStp, type FakeStp } from '../support/fake-stp';
import { verifyWebhook } from '../support/merchant-verify';
import type { Receiver } from '../support/receiver';
import { balanceMinorOf, startLiveStage, type LiveMerchant, type LiveStage } from '../support/live-stage';
import type { TestMerchant, TestStack } from '../support/test-stack';
import { ledger, payments } from '../support/payments';

const TOKEN = randomBytes(24).toString('base64url');
const CURP = 'GODE561231HDFRRN00';
let stp: FakeStp;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;
let live: LiveStage;

beforeAll(async () => {
  stp = await startFakeStp({ hangMs: 5_000 });
  live = await startLiveStage(
    { stp: { ...stp.stpConfig(TOKEN), timeouts: { connect_ms: 1000, total_ms: 1500 } } },
    { merchantName: 'Tienda en Vivo', receiver: true },
  );
  ({ stack, receiver, merchant } = live);
  stp.setCallbackBase(`${stack.baseUrl}/providers/stp/${TOKEN}`);
});

afterEach(() => {
  expect(stp.violations).toEqual([]);
});

afterAll(async () => {
  await live?.stop();
  await stp?.close();
});

/** A live SPEI payment: a checkout session in MXN and the customer choosing SPEI on it. */
async function direct(over: { amount?: number } = {}) {
  const api = payments(stack, merchant as TestMerchant);
  const session = await api.createSession({ amount: over.amount ?? 500, currency: 'MXN', country: 'MEX' });
  expect(session.status).toBe(200);
  return api.process(session.body.session_id as string, 'spei', {
    customer: { name: 'Diego González', email: 'diego@example.com', document: CURP },
  });
}
const status = async (id: string) =>
  (await stack.request(`/cashier/cashier/status/${merchant.merchantId}/${id}`, { apiKey: merchant.apiKey })).body;
const balance = () => balanceMinorOf(stack, merchant.apiKey, 'MXN');
async function ledgerMatches() {
  const entries = await ledger(merchant, 'MXN', 'live');
  expect(entries.reduce((s, e) => s + Number(e.amount_minor), 0)).toBe(await balance());
}
let abonoId = 9_000_000;
const abono = (clabe: string, monto: number, over: Record<string, unknown> = {}) => ({
  id: abonoId++,
  fechaOperacion: 20261125,
  institucionOrdenante: 40072,
  institucionBeneficiaria: 90646,
  claveRastreo: `BNET${abonoId}`,
  monto,
  nombreOrdenante: 'DIEGO GONZALEZ',
  tipoCuentaOrdenante: 40,
  cuentaOrdenante: '072691004495711499',
  rfcCurpOrdenante: 'ND',
  nombreBeneficiario: 'TIENDA EN VIVO',
  tipoCuentaBeneficiario: 40,
  cuentaBeneficiario: clabe,
  conceptoPago: 'PEDIDO 42',
  referenciaNumerica: 1234567,
  empresa: stp.empresa,
  tsLiquidacion: Date.now(),
  ...over,
});
const deposit = async (provider: string, id: number) =>
  (await documentClient().send(new GetCommand({ TableName: config.tableName, Key: { PK: `DEPOSIT#${provider}#${id}`, SK: 'DEPOSIT' } })))
    .Item;

describe('live SPEI pay-ins through STP', () => {
  it('a live SPEI payment shows its own CLABE under our STP account and settles on the matching abono', async () => {
    const before = await balance();
    const r = await direct();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'pending' });
    const id = r.body.payment_id as string;
    const clabe = r.body.clabe as string;
    expect(clabe.slice(0, 10)).toBe(stp.cuentaOrdenante.slice(0, 10));
    expect(isValidClabe(clabe)).toBe(true);
    // Another payment gets another CLABE.
    expect((await direct()).body.clabe).not.toBe(clabe);

    const body = abono(clabe, 500);
    expect(await stp.sendAbono(body)).toEqual({ status: 200, body: { mensaje: 'confirmar' } });
    expect(await status(id)).toMatchObject({ status: 'success' });
    const [h] = await receiver.waitFor(1, 15_000, (x) => x.body?.event === 'payment.success' && x.body?.payment_id === id);
    expect(verifyWebhook(h!.rawBody, h!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
    expect(await balance()).toBe(before + 50000);
    expect(await deposit('stp', body.id)).toMatchObject({ payment_id: id, outcome: 'settled', amount_minor: 50000, clabe });
    // STP delivers the same abono again: answered the same, nothing credited twice.
    expect(await stp.sendAbono(body)).toEqual({ status: 200, body: { mensaje: 'confirmar' } });
    expect(await balance()).toBe(before + 50000);
    await ledgerMatches();
  });

  it('a different amount is recorded and kept for an operator, never settled', async () => {
    const before = await balance();
    const r = await direct({ amount: 250 });
    const id = r.body.payment_id as string;
    const body = abono(r.body.clabe as string, 249.99);
    expect(await stp.sendAbono(body)).toEqual({ status: 200, body: { mensaje: 'confirmar' } });
    expect((await status(id)).status).toBe('pending');
    expect(await balance()).toBe(before);
    const stored = await paymentDeps().store.getPayment(id);
    expect(stored).toMatchObject({ status: 'pending', provider_mismatch_minor: 24999 });
    expect(await deposit('stp', body.id)).toMatchObject({ payment_id: id, outcome: 'mismatch', amount_minor: 24999 });
    await ledgerMatches();
  });

  it('a deposit to a CLABE that is no live payment’s is recorded and returned with STP’s devolver', async () => {
    const before = await balance();
    const clabe = buildClabe('646', stp.cuentaOrdenante.slice(3, 6), `${stp.cuentaOrdenante.slice(6, 10)}9999999`);
    const body = abono(clabe, 100);
    expect(await stp.sendAbono(body)).toEqual({ status: 200, body: { mensaje: 'devolver', id: 1 } });
    expect(await deposit('stp', body.id)).toMatchObject({ payment_id: null, outcome: 'returned', amount_minor: 10000, clabe });
    expect(await balance()).toBe(before);
    await ledgerMatches();
  });

  it('an abono STP’s own query does not show is not trusted: 502, nothing recorded or settled, until STP holds it', async () => {
    const before = await balance();
    const r = await direct({ amount: 300 });
    const id = r.body.payment_id as string;
    const body = abono(r.body.clabe as string, 300);
    // A callback body alone (forged, or STP's query not showing it yet): STP is asked to send it again.
    const forged = await stp.sendAbono(body, { unrecorded: true });
    expect(forged.status).toBe(502);
    expect((forged.body as { error: { code: string } }).error.code).toBe('PROVIDER_UNAVAILABLE');
    expect(stp.requests.filter((q) => q.path.endsWith('/efws/API/consultaOrden')).at(-1)?.body).toMatchObject({
      empresa: stp.empresa,
      claveRastreo: body.claveRastreo,
      tipoOrden: 'R',
      fechaOperacion: '20261125',
    });
    expect(await deposit('stp', body.id)).toBeUndefined();
    expect((await status(id)).status).toBe('pending');
    // The query shows another amount than the body claims: not trusted either.
    const other = abono(r.body.clabe as string, 300);
    stp.receive({ ...other, monto: 3 });
    expect((await stp.sendAbono(other, { unrecorded: true })).status).toBe(502);
    expect(await deposit('stp', other.id)).toBeUndefined();
    // STP's query hangs: 502, nothing recorded.
    stp.failNext('consultaOrden', { hang: true }, 2);
    expect((await stp.sendAbono(body)).status).toBe(502);
    expect(await deposit('stp', body.id)).toBeUndefined();
    expect(await balance()).toBe(before);
    // STP sends it again and its query now shows it: settled once.
    expect(await stp.sendAbono(body)).toEqual({ status: 200, body: { mensaje: 'confirmar' } });
    expect(await status(id)).toMatchObject({ status: 'success' });
    expect(await deposit('stp', body.id)).toMatchObject({ payment_id: id, outcome: 'settled', amount_minor: 30000 });
    expect(await balance()).toBe(before + 30000);
    await ledgerMatches();
  });

  it('deposits of the amount racing to one CLABE: exactly one settles the payment, every other is recorded late and returned', async () => {
    const before = await balance();
    const r = await direct({ amount: 75 });
    const id = r.body.payment_id as string;
    const clabe = r.body.clabe as string;
    // Four different abonos at once, each read the payment open: before, each was recorded settled and kept.
    const bodies = Array.from({ length: 4 }, () => abono(clabe, 75));
    const mensaje = (a: { body: unknown }) => (a.body as { mensaje?: string }).mensaje;
    const answers = (await Promise.all(bodies.map((b) => stp.sendAbono(b)))).map(mensaje);
    expect(answers.filter((a) => a === 'confirmar')).toHaveLength(1);
    expect(answers.filter((a) => a === 'devolver')).toHaveLength(3);
    expect((await status(id)).status).toBe('success');
    const outcomes = await Promise.all(bodies.map(async (b) => (await deposit('stp', b.id))?.outcome));
    expect(outcomes.sort()).toEqual(['late', 'late', 'late', 'settled']);
    // Each delivered again: the same answers, still one credit.
    expect((await Promise.all(bodies.map((b) => stp.sendAbono(b)))).map(mensaje)).toEqual(answers);
    expect(await balance()).toBe(before + 7500);
    expect((await ledger(merchant, 'MXN', 'live')).filter((e) => e.object_id === id)).toHaveLength(1);
    await ledgerMatches();
  });

  it('a second deposit to the CLABE of a payment already paid is recorded and returned (devolver), never kept', async () => {
    const before = await balance();
    const r = await direct({ amount: 120 });
    const id = r.body.payment_id as string;
    const clabe = r.body.clabe as string;
    expect(await stp.sendAbono(abono(clabe, 120))).toEqual({ status: 200, body: { mensaje: 'confirmar' } });
    expect((await status(id)).status).toBe('success');
    const late = abono(clabe, 120);
    expect(await stp.sendAbono(late)).toEqual({ status: 200, body: { mensaje: 'devolver', id: 3 } });
    expect(await deposit('stp', late.id)).toMatchObject({ payment_id: id, outcome: 'late', amount_minor: 12000, clabe });
    // Delivered again: the same answer, still one credit.
    expect(await stp.sendAbono(late)).toEqual({ status: 200, body: { mensaje: 'devolver', id: 3 } });
    expect(await balance()).toBe(before + 12000);
    const credits = (await ledger(merchant, 'MXN', 'live')).filter((e) => e.object_id === id);
    expect(credits).toHaveLength(1);
    await ledgerMatches();
  });

  it('a wrong token is 404 and records nothing; a body that is not an abono is 400', async () => {
    const r = await direct();
    const body = abono(r.body.clabe as string, 500);
    const wrong = await stack.request(`/providers/stp/${'x'.repeat(40)}/abono`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(wrong.status).toBe(404);
    expect(await deposit('stp', body.id)).toBeUndefined();
    expect((await status(r.body.payment_id as string)).status).toBe('pending');
    expect((await stp.sendAbono({ nope: true })).status).toBe(400);
    expect((await stp.sendAbono({ ...body, empresa: 'OTRA' })).status).toBe(400);
    expect(await deposit('stp', body.id)).toBeUndefined();
    await ledgerMatches();
  });
});
