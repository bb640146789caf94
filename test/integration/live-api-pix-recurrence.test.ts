/**
 * Pix Automático through API Pix 2.9.0 (issue 43, DESIGN.md 9.3): our connector against the fake PSP over real HTTPS
 * with mutual TLS, no stack and no table. Jornada 2 (a recurrence QR) and Jornada 1 (a request to the payer's PSP);
 * a create whose answer was lost found again by our reference, never sent twice; the receiver's and the payer's
 * cancel; charges (one cobr per txid however often asked, the window, one per cycle, the fixed amount), settled and
 * failed, retried only under the retry policy; the callbacks the fake posts to `<url>/rec` and `<url>/cobr` parsed.
 * Every request and every answer of the fake is checked against our schemas of the spec: no violation.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { providersCheck, registerApiPixWebhook } from '../../bin/cli/providers';
import { ProviderRejected, ProviderUnavailable, type MandateRetryPolicy, type PixMandateRequest } from '../../shared/application/providers';
import { apiPixConnectors, type ApiPixConnectors } from '../../shared/adapters/providers/api-pix/api-pix.connector';
import type { ApiPixRecurrence } from '../../shared/adapters/providers/api-pix/api-pix.recurrence';
import { buildLiveProviders } from '../../shared/adapters/providers/live-connectors';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { startFakePsp, type FakePsp } from '../support/fake-psp';
import { todayBr } from '../support/fake-psp/recurrence-state';

const TOKEN = randomBytes(24).toString('base64url');
let psp: FakePsp;
let hook: Server;
let hookBase = '';
let api: ApiPixConnectors;
let rec: ApiPixRecurrence;
const posted: Array<{ path: string; body: unknown }> = [];

const id = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;
const day = (offset: number) => new Date(Date.parse(`${todayBr()}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
const settle = () => new Promise((r) => setTimeout(r, 150));

beforeAll(async () => {
  psp = await startFakePsp({ hangMs: 3_000 });
  hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posted.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const addr = hook.address();
  hookBase = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/providers/api-pix/${TOKEN}`;
  const cfg = parseProvidersConfig(
    { api_pix: { ...psp.apiPixConfig(TOKEN), recebedor: psp.recebedor, timeouts: { connect_ms: 3_000, total_ms: 2_000 } } },
    'test',
  );
  api = apiPixConnectors(cfg.api_pix!);
  rec = api.recurrence!;
  await api.webhooks.register(hookBase);
});
afterEach(() => expect(psp.violations).toEqual([]));
afterAll(async () => {
  api?.client.close();
  await Promise.all([psp?.close(), new Promise<void>((r) => (hook ? hook.close(() => r()) : r()))]);
});

function mandate(o: Partial<PixMandateRequest> = {}): PixMandateRequest {
  const mandateId = id('md');
  const now = Date.now();
  return {
    mandateId,
    reference: rec.mandates.provider.reference(mandateId),
    debtor: { document: '52998224725', name: 'Maria Souza' },
    description: 'Academia Exemplo plano mensal',
    frequency: 'monthly',
    startDate: todayBr(),
    amountMinor: 9990,
    retryPolicy: 'none',
    approvalExpiresAt: new Date(now + 86_400_000).toISOString(),
    createdAt: new Date(now).toISOString(),
    ...o,
  };
}

/** An approved rec (Jornada 2) and its id. */
async function approved(retryPolicy: MandateRetryPolicy = 'none', amountMinor: number | null = 9990) {
  const req = mandate({ retryPolicy, amountMinor: amountMinor ?? undefined });
  const created = await rec.mandates.create(req);
  await psp.approveRec(created.providerMandateId, { callback: false });
  return created.providerMandateId;
}

function charge(providerMandateId: string, o: { amountMinor?: number; dueDate?: string } = {}) {
  const paymentId = id('pi');
  return {
    paymentId,
    reference: rec.mandates.provider.chargeReference(paymentId),
    providerMandateId,
    amountMinor: o.amountMinor ?? 9990,
    dueDate: o.dueDate ?? day(5),
    description: 'Mensalidade',
    retryPolicy: 'none' as const,
  };
}

describe('Pix Automático offered only with recebedor', () => {
  it('Connectors.pixMandates is set when api_pix names recebedor, absent otherwise; a bad recebedor names its field', () => {
    const base = psp.apiPixConfig(TOKEN);
    const without = buildLiveProviders(parseProvidersConfig({ api_pix: base }, 'test'));
    const withIt = buildLiveProviders(parseProvidersConfig({ api_pix: { ...base, recebedor: psp.recebedor } }, 'test'));
    expect(without.connectors?.pixMandates).toBeUndefined();
    expect(withIt.connectors?.pixMandates?.mandates.chargeWindowDays).toEqual({ min: 2, max: 10 });
    without.apiPix?.client.close();
    withIt.apiPix?.client.close();
    expect(() => parseProvidersConfig({ api_pix: { ...base, recebedor: { conta: '12-3', tipoConta: 'CORRENTE' } } }, 't')).toThrow(
      /api_pix\.recebedor\.conta/,
    );
  });

  it('registers webhookrec and webhookcobr beside the Pix webhook, at the same URL', async () => {
    expect(psp.webhookUrl()).toBe(hookBase);
    expect(await rec.webhooks.get()).toEqual({ rec: hookBase, cobr: hookBase });
  });
});

describe('the ops CLI', () => {
  it('`providers api-pix register-webhook` registers the Pix, rec and cobr webhooks; `providers check` reads all three', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pixauto-'));
    const file = join(dir, 'providers.json');
    writeFileSync(file, JSON.stringify({ api_pix: { ...psp.apiPixConfig(TOKEN), recebedor: psp.recebedor } }), { mode: 0o600 });
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(`ERR ${l}`) };
    const base = 'https://payments.example.com';
    expect(await registerApiPixWebhook({ providers: file, baseUrl: base }, io)).toBe(0);
    const url = `${base}/providers/api-pix/${TOKEN}`;
    expect([psp.webhookUrl(), psp.webhookRecUrl(), psp.webhookCobrUrl()]).toEqual([url, url, url]);
    expect(lines.join('\n')).toMatch(/Pix Automático: the PSP posts recurrences to .*\/rec and recurring charges to .*\/cobr/);
    expect(lines.join('\n')).not.toContain(TOKEN);
    lines.length = 0;
    expect(await providersCheck({ providers: file }, io)).toBe(0);
    expect(lines.join('\n')).toMatch(/Pix Automático webhooks registered/);
    await api.webhooks.register(hookBase);
  });
});

describe('recurrences', () => {
  it('Jornada 2: locrec + rec, the QR read back; approved, the callback to /rec names it and the read-back says active', async () => {
    const req = mandate();
    const created = await rec.mandates.create(req);
    expect(created.approval.type).toBe('pix_qr');
    expect(created.approval.type === 'pix_qr' && created.approval.pixCode).toMatch(/^000201.*br\.gov\.bcb\.pix.*6304[0-9A-F]{4}$/);
    expect(psp.rec(created.providerMandateId)?.vinculo.contrato).toBe(req.reference);
    expect(
      await rec.mandates.get({ providerMandateId: created.providerMandateId, reference: req.reference, createdAt: req.createdAt }),
    ).toEqual({
      kind: 'pending',
      providerMandateId: created.providerMandateId,
    });

    posted.length = 0;
    expect((await psp.approveRec(created.providerMandateId)).callbacks).toEqual([200]);
    const body = posted.find((p) => p.path.endsWith('/rec'))?.body;
    expect(posted.map((p) => p.path)).toEqual([`/providers/api-pix/${TOKEN}/rec`]);
    expect(rec.callbacks.parseRecurrences(body)).toEqual({ providerMandateIds: [created.providerMandateId], ignored: 0 });
    expect(rec.callbacks.parseCharges(body)).toBeNull();
    expect(rec.callbacks.tokenMatches(TOKEN)).toBe(true);
    expect(rec.callbacks.tokenMatches(`${TOKEN}x`)).toBe(false);
    const state = await rec.mandates.get({ reference: req.reference, createdAt: req.createdAt });
    expect(state).toMatchObject({ kind: 'active', providerMandateId: created.providerMandateId });
  });

  it('a variable amount sends no valorRec; its charges may be any amount', async () => {
    const idRec = await approved('none', null);
    expect(psp.rec(idRec)?.valor).toBeUndefined();
    expect(await rec.mandates.createCharge(charge(idRec, { amountMinor: 12345 }))).toMatchObject({ kind: 'scheduled' });
  });

  it('Jornada 1: rec + solicrec to the payer’s PSP; rejected by the payer, the read-back says rejected', async () => {
    const req = mandate({ payer: { ispb: '60746948', agency: '1234', account: '998877' } });
    const created = await rec.mandates.create(req);
    expect(created.approval).toEqual({ type: 'pix_request', requestId: expect.stringMatching(/^SC[0-9A-Z]{8}\d{8}[a-zA-Z0-9]{11}$/) });
    const held = psp.rec(created.providerMandateId);
    expect(held?.loc).toBeUndefined();
    expect(held?.solicitacao?.[0]).toMatchObject({ status: 'ENVIADA', destinatario: { ispbParticipante: '60746948', conta: '998877' } });
    await psp.rejectRec(created.providerMandateId, { callback: false });
    expect(
      await rec.mandates.get({ providerMandateId: created.providerMandateId, reference: req.reference, createdAt: req.createdAt }),
    ).toMatchObject({
      kind: 'rejected',
    });
    await expect(rec.mandates.create(mandate({ payer: { ispb: '60746948' } }))).rejects.toMatchObject({ code: 'payer_account_required' });
  });

  it('a POST /rec whose answer is lost is found again by our reference, and a second create resumes it: one rec', async () => {
    const req = mandate();
    psp.failNext('postRec', { lost: true });
    await expect(rec.mandates.create(req)).rejects.toBeInstanceOf(ProviderUnavailable);
    const found = await rec.mandates.get({ reference: req.reference, createdAt: req.createdAt });
    expect(found.kind).toBe('pending');
    const again = await rec.mandates.create(req);
    expect(found.kind === 'pending' && again.providerMandateId).toBe(found.kind === 'pending' && found.providerMandateId);
    expect(psp.recs().filter((r) => r.vinculo.contrato === req.reference)).toHaveLength(1);
    expect(await rec.mandates.get({ reference: mandate().reference, createdAt: req.createdAt })).toEqual({ kind: 'not_found' });
  });

  it('a POST /rec answered 503 is not sent again (no id of ours keys it)', async () => {
    const req = mandate({ payer: { ispb: '60746948', account: '5566' } });
    const before = psp.requests.filter((r) => r.method === 'POST' && r.path === '/rec').length;
    psp.failNext('postRec', { status: 503 });
    await expect(rec.mandates.create(req)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(psp.requests.filter((r) => r.method === 'POST' && r.path === '/rec').length - before).toBe(1);
    expect(await rec.mandates.create(req)).toMatchObject({ approval: { type: 'pix_request' } });
  });

  it('a refused solicrec leaves the rec (not "nothing created"); the next create resumes it with a new request', async () => {
    const req = mandate({ payer: { ispb: '60746948', account: '5566' } });
    psp.failNext('postSolicRec', { status: 400 });
    await expect(rec.mandates.create(req)).rejects.toMatchObject({ status: 400, notProcessed: false });
    const again = await rec.mandates.create(req);
    expect(again.approval).toMatchObject({ type: 'pix_request' });
    expect(psp.recs().filter((r) => r.vinculo.contrato === req.reference)).toHaveLength(1);
  });

  it('a read that hangs is ProviderUnavailable', async () => {
    const created = await rec.mandates.create(mandate());
    psp.failNext('getRec', { hang: true });
    const q = { providerMandateId: created.providerMandateId, reference: '', createdAt: '' };
    await expect(rec.mandates.get(q)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(await rec.mandates.get(q)).toMatchObject({ kind: 'pending' });
  });

  it('cancel: PATCH to CANCELADA by the receiver; an ended rec answers its state; the payer’s cancel reads by payer', async () => {
    const idRec = await approved();
    expect(await rec.mandates.cancel(idRec)).toMatchObject({ kind: 'cancelled', by: 'receiver', providerMandateId: idRec });
    const patches = () => psp.requests.filter((r) => r.method === 'PATCH' && r.path === `/rec/${idRec}`).length;
    expect(patches()).toBe(1);
    expect(await rec.mandates.cancel(idRec)).toMatchObject({ kind: 'cancelled', by: 'receiver' });
    expect(patches()).toBe(1);

    const other = await approved();
    await psp.payerCancelRec(other, { callback: false });
    expect(await rec.mandates.get({ providerMandateId: other, reference: 'x', createdAt: new Date().toISOString() })).toMatchObject({
      kind: 'cancelled',
      by: 'payer',
    });
    expect(await rec.mandates.cancel(`RN12345678${todayBr().replace(/-/g, '')}00000000000`)).toEqual({ kind: 'not_found' });
  });

  it('a pending rec expires', async () => {
    const created = await rec.mandates.create(mandate());
    await psp.expireRec(created.providerMandateId, { callback: false });
    expect(await rec.mandates.get({ providerMandateId: created.providerMandateId, reference: '', createdAt: '' })).toMatchObject({
      kind: 'expired',
    });
  });
});

describe('charges', () => {
  it('one cobr per txid: the same request twice, and again after a lost answer, creates one', async () => {
    const idRec = await approved();
    const c = charge(idRec);
    expect(c.reference).toMatch(/^rc[0-9a-f]{32}$/);
    expect(rec.callbacks.paymentIdOf(c.reference)).toBe(c.paymentId);
    expect(await rec.mandates.createCharge(c)).toEqual({ kind: 'scheduled', attempts: [] });
    await settle();
    expect(await rec.mandates.createCharge(c)).toMatchObject({ kind: 'scheduled', attempts: [{ date: c.dueDate, outcome: 'scheduled' }] });
    expect(psp.cobrs().filter((x) => x.idRec === idRec)).toHaveLength(1);

    const other = charge(await approved());
    psp.failNext('putCobr', { lost: true });
    await expect(rec.mandates.createCharge(other)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(await rec.mandates.createCharge(other)).toMatchObject({ kind: 'scheduled' });
    expect(psp.cobrs().filter((x) => x.idRec === other.providerMandateId)).toHaveLength(1);
  });

  it('the fake refuses a due date outside 2 to 10 days, a 2nd charge in a cycle, an amount not valorRec, a rec not approved', async () => {
    const idRec = await approved();
    for (const dueDate of [day(1), day(11)])
      await expect(rec.mandates.createCharge(charge(idRec, { dueDate }))).rejects.toMatchObject({ status: 400, notProcessed: true });
    await expect(rec.mandates.createCharge(charge(idRec, { amountMinor: 9991 }))).rejects.toBeInstanceOf(ProviderRejected);
    await rec.mandates.createCharge(charge(idRec, { dueDate: day(3) }));
    await expect(rec.mandates.createCharge(charge(idRec, { dueDate: day(6) }))).rejects.toBeInstanceOf(ProviderRejected);
    const pending = await rec.mandates.create(mandate());
    await expect(rec.mandates.createCharge(charge(pending.providerMandateId))).rejects.toBeInstanceOf(ProviderRejected);
    expect(await rec.mandates.getCharge(charge(idRec).reference)).toEqual({ kind: 'not_found' });
  });

  it('settled: paid with the attempt’s endToEndId; the callback to /cobr names our txid', async () => {
    const c = charge(await approved());
    await rec.mandates.createCharge(c);
    await settle();
    posted.length = 0;
    const paid = await psp.settleCobr(c.reference, { callback: 'twice' });
    expect(paid.callbacks).toEqual([200, 200]);
    const state = await rec.mandates.getCharge(c.reference);
    expect(state).toMatchObject({ kind: 'paid', endToEndId: paid.endToEndId, amountMinor: 9990, attempts: [{ outcome: 'paid' }] });
    expect(posted.map((p) => p.path)).toEqual([`/providers/api-pix/${TOKEN}/cobr`, `/providers/api-pix/${TOKEN}/cobr`]);
    const parsed = rec.callbacks.parseCharges(posted[0]?.body);
    expect(parsed).toEqual({ references: [c.reference], ignored: 0 });
    expect(rec.callbacks.paymentIdOf(parsed!.references[0]!)).toBe(c.paymentId);
    expect(rec.callbacks.parseCharges({ cobsr: [{ txid: 'nope' }] })).toEqual({ references: [], ignored: 1 });
  });

  it('failed without retries: a rejection code maps to ours; a day passed unpaid is insufficient_funds; a retry is refused', async () => {
    const a = charge(await approved());
    await rec.mandates.createCharge(a);
    await settle();
    await psp.failCobrAttempt(a.reference, { code: 'AC06', callback: false });
    expect(await rec.mandates.getCharge(a.reference)).toMatchObject({
      kind: 'failed',
      failureCode: 'account_blocked',
      attempts: [{ outcome: 'failed', failureCode: 'account_blocked' }],
    });
    await expect(rec.mandates.retryCharge(a.reference, day(7))).rejects.toBeInstanceOf(ProviderRejected);

    const b = charge(await approved());
    await rec.mandates.createCharge(b);
    await settle();
    await psp.failCobrAttempt(b.reference, { callback: false });
    expect(await rec.mandates.getCharge(b.reference)).toMatchObject({ kind: 'failed', failureCode: 'insufficient_funds' });
  });

  it('under PERMITE_3R_7D a failed attempt leaves the charge scheduled, a retry adds an attempt, which pays', async () => {
    const c = charge(await approved('retry_3_in_7_days'));
    await rec.mandates.createCharge(c);
    await settle();
    await psp.failCobrAttempt(c.reference, { callback: false });
    expect(await rec.mandates.getCharge(c.reference)).toEqual({
      kind: 'scheduled',
      attempts: [{ date: c.dueDate, outcome: 'failed', failureCode: 'insufficient_funds' }],
    });
    expect(await rec.mandates.retryCharge(c.reference, day(7))).toMatchObject({
      kind: 'scheduled',
      attempts: [{ outcome: 'failed' }, { date: day(7), outcome: 'scheduled' }],
    });
    await psp.settleCobr(c.reference, { callback: false });
    expect(await rec.mandates.getCharge(c.reference)).toMatchObject({
      kind: 'paid',
      attempts: [{ outcome: 'failed' }, { outcome: 'paid' }],
    });
  });

  it('the payer cancelling the recurrence cancels its open charge: failed payer_cancelled', async () => {
    const c = charge(await approved());
    await rec.mandates.createCharge(c);
    await settle();
    await psp.payerCancelRec(c.providerMandateId, { callback: false });
    expect(await rec.mandates.getCharge(c.reference)).toMatchObject({ kind: 'failed', failureCode: 'payer_cancelled' });
  });
});
