/**
 * Live Pix Automático mandates (issue 43, DESIGN.md 9.3) end to end: the live stage on the local engines against the
 * fake API Pix PSP (mutual TLS, OAuth2, every request and answer checked against our schemas of 2.9.0) with a
 * `recebedor`, the Pix Automático webhooks registered by `providers api-pix register-webhook`. What a merchant
 * observes: the create and its QR or request, the payer's approval, refusal and cancellation in the bank app, the
 * merchant's cancel, charges inside the window (one cobr each, whatever fails on the way), their settlement, retries
 * and failures, forged, doubled and stale callbacks, and the reconciliation job resolving what no callback told.
 */
import { randomBytes } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { registerApiPixWebhook } from '../../bin/cli/providers';
import { handler as reconcileProviders } from '../../functions/jobs/reconcile-providers.handler';
import { cobrTxidOf, recReferenceOf } from '../../shared/adapters/providers/api-pix/api-pix.recurrence.transformers';
import { addDays } from '../../shared/domain/mandates/mandate';
import { startFakePsp, type FakePsp } from '../support/fake-psp';
import { todayBr } from '../support/fake-psp/recurrence-state';
import { balanceMinorOf, callAs, expectLedgerEqualsBalance, startLiveStage, until, type LiveStage } from '../support/live-stage';
import { verifyWebhook } from '../support/merchant-verify';
import type { Received } from '../support/receiver';

jest.setTimeout(60_000);

const TOKEN = randomBytes(24).toString('base64url');
const RECEBEDOR = { agencia: '0001', conta: '7654321', tipoConta: 'CORRENTE' } as const;
let psp: FakePsp;
let stage: LiveStage;

beforeAll(async () => {
  process.env.WEBHOOK_RETRY_SCHEDULE = '0,1';
  psp = await startFakePsp({ recebedor: RECEBEDOR, hangMs: 2_500 });
  stage = await startLiveStage(
    { api_pix: { ...psp.apiPixConfig(TOKEN), recebedor: psp.recebedor, timeouts: { connect_ms: 1000, total_ms: 1500 } } },
    { merchantName: 'Academia Ao Vivo', receiver: true },
  );
  // As ops would: `npm run cli -- providers api-pix register-webhook --base-url <the stage's public URL>`.
  const lines: string[] = [];
  const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(`ERR ${l}`) };
  expect(await registerApiPixWebhook({ providers: process.env.PROVIDERS_FILE, baseUrl: stage.stack.baseUrl }, io)).toBe(0);
  expect(lines.join('\n')).toMatch(/Pix Automático: the PSP posts recurrences to/);
});

afterEach(() => {
  psp.clearFaults();
  psp.autoCallbacks(true);
  expect(psp.violations).toEqual([]);
});

afterAll(async () => {
  await stage?.stop();
  await psp?.close();
});

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  stage.stack.request(path, {
    method,
    apiKey: stage.merchant.apiKey,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const day = (offset: number) => addDays(todayBr(), offset);
const DOCUMENT = '52998224725';

const mandateBody = (over: Record<string, unknown> = {}) => ({
  country: 'BRA',
  currency: 'BRL',
  method: 'pix_automatico',
  customer: { name: 'Maria Souza', email: 'maria@example.com', document: DOCUMENT },
  description: 'Academia plano mensal',
  frequency: 'monthly',
  amount: 99.9,
  start_date: todayBr(),
  ...over,
});
const createMandate = (over: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  call('POST', '/api/v1/mandates', mandateBody(over), headers);
const getMandate = (id: string) => call('GET', `/api/v1/mandates/${id}`);
const charge = (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', `/api/v1/mandates/${id}/charges`, body, headers);
const paymentStatus = (id: string) =>
  callAs(stage.stack, stage.merchant.apiKey, 'GET', `/cashier/cashier/status/${stage.merchant.merchantId}/${id}`);

/** The rec the fake holds for a mandate (by our reference in vinculo.contrato). */
const recOf = (mandateId: string) => psp.recs().find((r) => r.vinculo.contrato === recReferenceOf(mandateId));
const idRecOf = (mandateId: string) => {
  const rec = recOf(mandateId);
  if (!rec) throw new Error(`the fake holds no rec for ${mandateId}`);
  return rec.idRec;
};
const cobrPuts = (txid: string) => psp.requests.filter((q) => q.method === 'PUT' && q.path === `/cobr/${txid}`).length;
const allCobrPuts = () => psp.requests.filter((q) => q.method === 'PUT' && q.path.startsWith('/cobr/')).length;

/** The reconciliation job as the scheduler runs it, at `seconds` from now (its schedule's time is its "now"). */
const runJob = (seconds: number) =>
  reconcileProviders(
    { time: new Date(Date.now() + seconds * 1000).toISOString() } as ScheduledEvent,
    { getRemainingTimeInMillis: () => 60_000, functionName: 'reconcile-providers' } as Context,
  );

const mandateStatus = (id: string, status: string) =>
  until(
    () => getMandate(id),
    (r) => r.body.status === status,
    `mandate ${id} ${status}`,
  );
const paymentIs = (id: string, status: string) =>
  until(
    () => paymentStatus(id),
    (r) => r.body.status === status,
    `payment ${id} ${status}`,
  );

/** The merchant's webhooks of one event for one object, each checked signed with the merchant's secret. */
async function signedHooks(event: string, key: 'mandate_id' | 'payment_id', id: string, count = 1): Promise<Received[]> {
  const hooks = await stage.receiver.waitFor(count, 15_000, (r) => r.body?.event === event && r.body?.[key] === id);
  for (const h of hooks) expect(verifyWebhook(h.rawBody, h.headers as Record<string, string>, stage.merchant.webhookSecret).ok).toBe(true);
  return hooks;
}
const hooksSoFar = (event: string, key: 'mandate_id' | 'payment_id', id: string) =>
  stage.receiver.received.filter((r) => r.body?.event === event && r.body?.[key] === id).length;

/** A mandate the payer approved (callback told): its id and idRec. */
async function activeMandate(over: Record<string, unknown> = {}): Promise<{ id: string; idRec: string }> {
  const r = await createMandate(over);
  expect(r.status).toBe(200);
  const id = r.body.mandate_id as string;
  const idRec = idRecOf(id);
  expect((await psp.approveRec(idRec)).callbacks).toEqual([200]);
  await mandateStatus(id, 'active');
  return { id, idRec };
}

/** The callback the PSP posts for a cobr, built from a snapshot of it (what a stale or replayed callback carries). */
const cobrCallback = (cobr: unknown) =>
  fetch(`${stage.stack.baseUrl}/providers/api-pix/${TOKEN}/cobr`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ cobsr: [cobr] }),
  });

describe('approval', () => {
  it('Jornada 2: pending_approval with the PSP’s QR; approved in the bank app: active and a signed mandate.approved', async () => {
    const r = await createMandate();
    expect(r.status).toBe(200);
    const id = r.body.mandate_id as string;
    const rec = recOf(id);
    expect(rec).toMatchObject({
      status: 'CRIADA',
      vinculo: { contrato: recReferenceOf(id), devedor: { cpf: DOCUMENT, nome: 'Maria Souza' } },
      calendario: { dataInicial: todayBr(), periodicidade: 'MENSAL' },
      valor: { valorRec: '99.90' },
      politicaRetentativa: 'NAO_PERMITE',
    });
    expect(r.body).toMatchObject({ status: 'pending_approval', livemode: true, approval: { type: 'pix_qr' } });
    expect(r.body.approval.pix_code).toBe(psp.rec(rec!.idRec)?.dadosQR?.pixCopiaECola);
    expect(r.body.customer.document).not.toContain(DOCUMENT);

    expect((await psp.approveRec(rec!.idRec)).callbacks).toEqual([200]);
    const got = await mandateStatus(id, 'active');
    expect(got.body.approved_at).toEqual(expect.any(String));
    const [hook] = await signedHooks('mandate.approved', 'mandate_id', id);
    expect(hook!.body).toMatchObject({ status: 'active', mandate_id: id, livemode: true });
  });

  it('the approval’s callback withheld: the reconciliation job reads the rec back and the mandate is active', async () => {
    const r = await createMandate();
    const id = r.body.mandate_id as string;
    expect((await psp.approveRec(idRecOf(id), { callback: false })).callbacks).toEqual([]);
    expect((await getMandate(id)).body.status).toBe('pending_approval');
    await runJob(16 * 60);
    expect((await getMandate(id)).body.status).toBe('active');
    await signedHooks('mandate.approved', 'mandate_id', id);
  });

  it('Jornada 1 (payer): a request pushed to the payer’s PSP; rejected there: rejected with mandate.rejected', async () => {
    const payer = { bank_ispb: '60746948', agency: '1234', account: '0012345678' };
    const r = await createMandate({ payer, amount: undefined, max_amount: 300 });
    expect(r.status).toBe(200);
    const id = r.body.mandate_id as string;
    expect(r.body).toMatchObject({ status: 'pending_approval', approval: { type: 'pix_request' }, max_amount: 300, amount: null });
    const rec = psp.rec(idRecOf(id));
    expect(rec?.valor).toBeUndefined();
    expect(rec?.solicitacao).toEqual([
      expect.objectContaining({
        status: 'ENVIADA',
        destinatario: expect.objectContaining({ ispbParticipante: '60746948', conta: '0012345678' }),
      }),
    ]);
    expect((await psp.rejectRec(rec!.idRec)).callbacks).toEqual([200]);
    const got = await mandateStatus(id, 'rejected');
    expect(got.body).toMatchObject({ failure_code: 'payer_rejected', ended_at: expect.any(String) });
    await signedHooks('mandate.rejected', 'mandate_id', id);
  });

  it('a lost answer on POST /rec: 502 to the merchant, the mandate pending; the job finds the rec by our reference', async () => {
    psp.failNext('postRec', { lost: true });
    const r = await createMandate();
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('PROVIDER_UNAVAILABLE');
    const listed = await call('GET', '/api/v1/mandates?status=pending_approval');
    const id = (listed.body.data as Array<{ mandate_id: string; created_at: string }>).sort((a, b) =>
      a.created_at < b.created_at ? 1 : -1,
    )[0]!.mandate_id;
    expect(r.body.error.message).toContain(id);
    expect((await getMandate(id)).body.status).toBe('pending_approval');
    const idRec = idRecOf(id);
    expect(psp.requests.filter((q) => q.method === 'POST' && q.path === '/rec').length).toBeGreaterThan(0);
    const recsBefore = psp.recs().length;
    await runJob(2 * 60);
    // Found by our reference (GET /rec listing), never created again; now known by its idRec, so its callback finds it.
    expect(psp.recs().length).toBe(recsBefore);
    expect((await psp.approveRec(idRec)).callbacks).toEqual([200]);
    await mandateStatus(id, 'active');
    await signedHooks('mandate.approved', 'mandate_id', id);
  });
  it('a lost answer on POST /rec, then the same keyed create again: the rec is resumed (none made again) and its QR shown', async () => {
    const headers = { 'x-idempotency-key': `md-lost-${randomBytes(6).toString('hex')}` };
    psp.failNext('postRec', { lost: true });
    const first = await createMandate({}, headers);
    expect(first.status).toBe(502);
    const posts = psp.requests.filter((q) => q.method === 'POST' && q.path === '/rec').length;
    const again = await createMandate({}, headers);
    expect(again.status).toBe(200);
    const id = again.body.mandate_id as string;
    expect(first.body.error.message).toContain(id);
    expect(psp.requests.filter((q) => q.method === 'POST' && q.path === '/rec').length).toBe(posts);
    expect(again.body).toMatchObject({ status: 'pending_approval', approval: { type: 'pix_qr' } });
    expect(again.body.approval.pix_code).toBe(psp.rec(idRecOf(id))?.dadosQR?.pixCopiaECola);
    expect((await createMandate({}, headers)).body).toEqual(again.body);
    expect((await psp.approveRec(idRecOf(id))).callbacks).toEqual([200]);
    await mandateStatus(id, 'active');
  });
});

describe('cancel', () => {
  it('the payer cancels in the bank app: cancelled by the payer, with mandate.cancelled', async () => {
    const { id, idRec } = await activeMandate();
    expect((await psp.payerCancelRec(idRec)).callbacks).toEqual([200]);
    const got = await mandateStatus(id, 'cancelled');
    expect(got.body).toMatchObject({ cancelled_by: 'payer', ended_at: expect.any(String) });
    const [hook] = await signedHooks('mandate.cancelled', 'mandate_id', id);
    expect(hook!.body).toMatchObject({ cancelled_by: 'payer' });
  });

  it('the merchant cancels: PATCH at the PSP, then cancelled by the merchant; the PSP’s own callback moves nothing again', async () => {
    const { id, idRec } = await activeMandate();
    const r = await call('POST', `/api/v1/mandates/${id}/cancel`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'cancelled', cancelled_by: 'merchant' });
    expect(psp.requests.filter((q) => q.method === 'PATCH' && q.path === `/rec/${idRec}`)).toEqual([
      expect.objectContaining({ body: { status: 'CANCELADA' } }),
    ]);
    expect(psp.rec(idRec)).toMatchObject({ status: 'CANCELADA', encerramento: { cancelamento: { solicitante: 'USUARIO_RECEBEDOR' } } });
    await signedHooks('mandate.cancelled', 'mandate_id', id);
    // The PSP tells of the receiver's cancel on its own; read back, it is what we hold: one event, one status.
    await runJob(25 * 3600);
    expect((await getMandate(id)).body).toMatchObject({ status: 'cancelled', cancelled_by: 'merchant' });
    expect(hooksSoFar('mandate.cancelled', 'mandate_id', id)).toBe(1);
    expect((await call('POST', `/api/v1/mandates/${id}/cancel`)).status).toBe(409);
  });
});

describe('charges', () => {
  it('a charge in the window: pending, one cobr with our fields; settled: success, credited once, signed payment.success', async () => {
    const { id, idRec } = await activeMandate();
    const due = day(5);
    const before = await balanceMinorOf(stage.stack, stage.merchant.apiKey, 'BRL');
    const r = await charge(id, { amount: 99.9, due_date: due, description: 'Mensalidade de junho' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'pending', mandate_id: id, due_date: due, payment_method: 'pix', amount: 99.9 });
    const paymentId = r.body.payment_id as string;
    const txid = cobrTxidOf(paymentId);
    expect(cobrPuts(txid)).toBe(1);
    expect(psp.requests.find((q) => q.method === 'PUT' && q.path === `/cobr/${txid}`)?.body).toEqual({
      idRec,
      infoAdicional: 'Mensalidade de junho',
      calendario: { dataDeVencimento: due },
      valor: { original: '99.90' },
      ajusteDiaUtil: true,
      recebedor: RECEBEDOR,
    });
    expect(psp.cobrs().filter((c) => c.idRec === idRec)).toEqual([expect.objectContaining({ txid })]);
    await until(
      async () => psp.cobr(txid)?.status,
      (s) => s === 'ATIVA',
      'the cobr scheduled at the payer’s PSP',
    );
    const scheduled = structuredClone(psp.cobr(txid));

    const settled = await psp.settleCobr(txid, { callback: 'twice' });
    expect(settled.callbacks).toEqual([200, 200]);
    const paid = await paymentIs(paymentId, 'success');
    expect(paid.body).toMatchObject({ mandate_id: id, due_date: due });
    const [hook] = await signedHooks('payment.success', 'payment_id', paymentId);
    expect(hook!.body).toMatchObject({ mandate_id: id, payment_id: paymentId, status: 'success' });
    expect((await balanceMinorOf(stage.stack, stage.merchant.apiKey, 'BRL')) - before).toBe(9990);

    // A stale callback (the cobr as it was when scheduled) after the settlement: read back, nothing moves.
    expect((await cobrCallback(scheduled)).status).toBe(200);
    expect((await cobrCallback(psp.cobr(txid))).status).toBe(200);
    expect((await paymentStatus(paymentId)).body.status).toBe('success');
    expect((await balanceMinorOf(stage.stack, stage.merchant.apiKey, 'BRL')) - before).toBe(9990);
    expect(hooksSoFar('payment.success', 'payment_id', paymentId)).toBe(1);
    expect(cobrPuts(txid)).toBe(1);
    expect((await getMandate(id)).body.charges_count).toBe(1);
  });

  it('under retry_3_in_7_days a failed attempt keeps the charge pending and is retried; the retry is paid: success', async () => {
    const { id, idRec } = await activeMandate({ retry_policy: 'retry_3_in_7_days' });
    expect(psp.rec(idRec)?.politicaRetentativa).toBe('PERMITE_3R_7D');
    const due = day(3);
    const r = await charge(id, { amount: 99.9, due_date: due });
    const paymentId = r.body.payment_id as string;
    const txid = cobrTxidOf(paymentId);
    await until(
      async () => psp.cobr(txid)?.status,
      (s) => s === 'ATIVA',
      'the cobr scheduled',
    );
    expect((await psp.failCobrAttempt(txid)).callbacks).toEqual([200]);
    // The attempt lapsed (no funds): still pending; a retry is asked for on a later day within the 7.
    const retried = await until(
      async () => psp.cobr(txid),
      (c) => (c?.tentativas ?? []).some((t) => t.tipo === 'NTAG'),
      'a retry asked of the PSP',
    );
    const ntag = retried!.tentativas!.find((t) => t.tipo === 'NTAG')!;
    expect(ntag.dataLiquidacao > due && ntag.dataLiquidacao <= addDays(due, 7)).toBe(true);
    const pending = (await paymentStatus(paymentId)).body;
    expect(pending.status).toBe('pending');
    // The failed attempt is on the payment while it waits for the retry.
    expect(pending.charge_attempts).toEqual(expect.arrayContaining([expect.objectContaining({ outcome: 'failed' })]));
    expect(hooksSoFar('payment.failed', 'payment_id', paymentId)).toBe(0);

    await psp.settleCobr(txid);
    await paymentIs(paymentId, 'success');
    await signedHooks('payment.success', 'payment_id', paymentId);
    expect(cobrPuts(txid)).toBe(1);
  });

  it('a final failure (AC05): payment failed with account_closed and a signed payment.failed; the cycle is not charged again', async () => {
    const { id } = await activeMandate();
    const due = day(4);
    const r = await charge(id, { amount: 99.9, due_date: due });
    const paymentId = r.body.payment_id as string;
    const txid = cobrTxidOf(paymentId);
    await until(
      async () => psp.cobr(txid)?.status,
      (s) => s === 'ATIVA',
      'the cobr scheduled',
    );
    expect((await psp.failCobrAttempt(txid, { code: 'AC05' })).callbacks).toEqual([200]);
    const failed = await paymentIs(paymentId, 'failed');
    expect(failed.body).toMatchObject({ failure_code: 'account_closed', mandate_id: id });
    const [hook] = await signedHooks('payment.failed', 'payment_id', paymentId);
    expect(hook!.body).toMatchObject({ mandate_id: id, failure_code: 'account_closed' });
    // The same callback again: nothing more.
    expect((await cobrCallback(psp.cobr(txid))).status).toBe(200);
    expect(hooksSoFar('payment.failed', 'payment_id', paymentId)).toBe(1);
    // The cycle stays charged: the PSP retries under the policy, the merchant does not charge it again (nothing sent).
    const cobrsBefore = psp.cobrs().length;
    const again = await charge(id, { amount: 99.9, due_date: due });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('MANDATE_CYCLE_ALREADY_CHARGED');
    expect(psp.cobrs().length).toBe(cobrsBefore);
    expect((await getMandate(id)).body.charges_count).toBe(1);
  });

  it('the PSP answering 5xx to PUT /cobr: pending; the job sends the same request later and there is one cobr', async () => {
    const { id } = await activeMandate();
    psp.failNext('putCobr', { status: 500 }, 2);
    const r = await charge(id, { amount: 99.9, due_date: day(6) });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('pending');
    const paymentId = r.body.payment_id as string;
    const txid = cobrTxidOf(paymentId);
    expect(psp.cobr(txid)).toBeUndefined();
    const first = psp.requests.find((q) => q.method === 'PUT' && q.path === `/cobr/${txid}`)!.body;
    await runJob(10 * 60);
    expect(psp.cobr(txid)).toMatchObject({ txid, status: expect.stringMatching(/CRIADA|ATIVA/) });
    const puts = psp.requests.filter((q) => q.method === 'PUT' && q.path === `/cobr/${txid}`);
    expect(puts.map((q) => q.body)).toEqual(puts.map(() => first));
    expect(psp.cobrs().filter((c) => c.txid === txid)).toHaveLength(1);
    await psp.settleCobr(txid);
    await paymentIs(paymentId, 'success');
  });

  it('the PSP hanging on PUT /cobr, then its answer lost: pending each time, one cobr, paid once', async () => {
    const { id } = await activeMandate();
    psp.failNext('putCobr', { hang: true });
    const r = await charge(id, { amount: 99.9, due_date: day(7) });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('pending');
    const paymentId = r.body.payment_id as string;
    const txid = cobrTxidOf(paymentId);
    expect(psp.cobr(txid)).toBeUndefined();
    // The job's resend is carried out and its answer lost: read back later, the cobr is there; nothing is sent again.
    psp.failNext('putCobr', { lost: true });
    await runJob(10 * 60);
    expect(psp.cobr(txid)).toBeDefined();
    const puts = cobrPuts(txid);
    await runJob(7 * 3600);
    expect(cobrPuts(txid)).toBe(puts);
    expect(psp.cobrs().filter((c) => c.txid === txid)).toHaveLength(1);
    const before = await balanceMinorOf(stage.stack, stage.merchant.apiKey, 'BRL');
    await psp.settleCobr(txid, { callback: false });
    await runJob(13 * 3600);
    await paymentIs(paymentId, 'success');
    expect((await balanceMinorOf(stage.stack, stage.merchant.apiKey, 'BRL')) - before).toBe(9990);
  });

  it('refused before anything is sent: outside the window, above the amount, a second charge in the cycle', async () => {
    const { id } = await activeMandate({ amount: undefined, max_amount: 100 });
    const puts = allCobrPuts();
    const refused = async (body: Record<string, unknown>, status: number, code: string) => {
      const r = await charge(id, body);
      expect(r.status).toBe(status);
      expect(JSON.stringify(r.body)).toContain(code);
    };
    await refused({ amount: 50, due_date: day(1) }, 400, 'DUE_DATE_OUTSIDE_WINDOW');
    await refused({ amount: 50, due_date: day(11) }, 400, 'DUE_DATE_OUTSIDE_WINDOW');
    await refused({ amount: 100.01, due_date: day(5) }, 400, 'MANDATE_AMOUNT_EXCEEDED');
    expect(allCobrPuts()).toBe(puts);
    const first = await charge(id, { amount: 80, due_date: day(5) });
    expect(first.status).toBe(200);
    expect(allCobrPuts()).toBe(puts + 1);
    await refused({ amount: 20, due_date: day(6) }, 409, 'MANDATE_CYCLE_ALREADY_CHARGED');
    expect(allCobrPuts()).toBe(puts + 1);
    expect((await getMandate(id)).body.charges_count).toBe(1);
  });

  it('a charge on a mandate awaiting approval is refused, nothing sent', async () => {
    const r = await createMandate();
    const puts = allCobrPuts();
    const c = await charge(r.body.mandate_id, { amount: 99.9, due_date: day(5) });
    expect(c.status).toBe(409);
    expect(JSON.stringify(c.body)).toContain('MANDATE_NOT_ACTIVE');
    expect(allCobrPuts()).toBe(puts);
  });
});

describe('callbacks', () => {
  it('a forged token is 404 and reads nothing; an unknown idRec or txid is a 200 that moves nothing', async () => {
    const seen = psp.requests.length;
    for (const kind of ['rec', 'cobr']) {
      const r = await fetch(`${stage.stack.baseUrl}/providers/api-pix/${'x'.repeat(40)}/${kind}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(kind === 'rec' ? { recs: [{ idRec: 'RN1234567820250101abcdefghijk' }] } : { cobsr: [] }),
      });
      expect(r.status).toBe(404);
    }
    expect(psp.requests.length).toBe(seen);
    const unknown = await fetch(`${stage.stack.baseUrl}/providers/api-pix/${TOKEN}/cobr`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        cobsr: [{ idRec: 'RN1234567820250101abcdefghijk', txid: `rc${'0'.repeat(32)}`, status: 'CONCLUIDA', atualizacao: [] }],
      }),
    });
    expect(unknown.status).toBe(200);
  });
});

describe('the end', () => {
  it('the ledger equals the balance the merchant reads', async () => {
    await expectLedgerEqualsBalance(stage.stack, stage.merchant, 'BRL');
  });
});
