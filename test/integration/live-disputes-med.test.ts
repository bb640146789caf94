/**
 * Live PIX MED disputes end to end (DESIGN.md 9.4), over real HTTP on the local engines against the fake API Pix PSP
 * (where the Pix is received and its devoluções are told) and the fake Efí (whose infractions the readPixDisputes job
 * reads, and which takes the receiver's defense): an infraction read by the job opens a `pix_med` dispute
 * (needs_response, its deadline the infraction's, no defense reasons: a MED defense is its text); evidence with
 * documents is refused; the text staged and submitted reaches Efí once (under_review, its repeats send nothing, a
 * retry after Efí did not answer defends once); closed without a return the dispute is won, a MED devolução loses it
 * with one pix_fraud_return debit; accepting sends nothing to Efí. After every case the live ledger equals the balance
 * and neither fake saw a request off its schema.
 */
import { readPixDisputes } from '../../shared/application/rails';
import { paymentDeps } from '../../shared/wiring';
import type { FakeEfi } from '../support/fake-efi';
import type { FakePsp } from '../support/fake-psp';
import { startPixMedStage, type PixMedStage } from '../support/pix-med-stage';
import { verifyWebhook } from '../support/merchant-verify';
import { disputeCalls } from '../support/dispute-calls';
import { customer } from '../support/payments';
import { balanceMinorOf, expectLedgerEqualsBalance, type LiveMerchant, type LiveStage } from '../support/live-stage';

const TEXT = 'Venda legítima: pedido 4411 entregue em 12/05 ao próprio pagador; comprovante de entrega e conversa com ele.';
let psp: FakePsp;
let efi: FakeEfi;
let live: LiveStage;
let merchant: LiveMerchant;

let medStage: PixMedStage;

beforeAll(async () => {
  medStage = await startPixMedStage('Loja MED Defesa');
  ({ psp, efi, live, merchant } = medStage);
});

afterEach(async () => {
  expect(psp.violations).toEqual([]);
  expect(efi.violations).toEqual([]);
  expect(efi.clearFaults()).toBe(0);
  await expectLedgerEqualsBalance(live.stack, merchant, 'BRL');
});

afterAll(async () => {
  await medStage?.stop();
});

const txidOf = (paymentId: string) => `pi${Buffer.from(paymentId.slice(3), 'base64url').toString('hex')}`;
const disputeIdOf = (paymentId: string) => `dsp_${paymentId.slice(3)}`;
const balance = () => balanceMinorOf(live.stack, merchant.apiKey, 'BRL');
const status = (id: string) => live.stack.request(`/cashier/cashier/status/${merchant.merchantId}/${id}`, { apiKey: merchant.apiKey });

/** A live PIX payment paid at the PSP (its callback settles it), and the same Pix as Efí lists it (one PSP in production). */
async function paidPix(amount: number) {
  const r = await live.stack.request('/cashier/cashier/payment', {
    method: 'POST',
    apiKey: merchant.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ payment_method: 'pix', amount, currency: 'BRL', country: 'BRA', customer }),
  });
  expect(r.status).toBe(200);
  const id = r.body.payment_id as string;
  const paid = await psp.pay(txidOf(id));
  expect(paid.callbackStatus).toBe(200);
  expect((await status(id)).body.status).toBe('success');
  efi.receive(amount.toFixed(2), { endToEndId: paid.endToEndId, txid: txidOf(id) });
  return { id, e2e: paid.endToEndId };
}
const readInfractions = () => readPixDisputes(paymentDeps(), new Date(), { windowSeconds: 86_400 });

/** A paid Pix under an infraction the job has read: its dispute open. */
async function underInfraction(amount: number, o: { tipoSituacao?: string; deadlineDays?: number } = {}) {
  const { id, e2e } = await paidPix(amount);
  const inf = efi.openInfraction(e2e, { tipoSituacao: 'golpe', ...o });
  expect(await readInfractions()).toMatchObject({ applied: 1 });
  return { paymentId: id, e2e, inf, disputeId: disputeIdOf(id) };
}

const { getDispute, stage, submit, accept } = disputeCalls(
  () => live.stack,
  () => merchant.apiKey,
);

/** Every defense POST that reached Efí for an infraction (refused and failed ones included). */
const defensePosts = (infractionId: string) =>
  efi.requests.filter((r) => r.method === 'POST' && r.path === `/v2/gn/infracoes/${infractionId}/defesa`);
async function fraudReturns(paymentId: string) {
  const r = await live.stack.request('/api/v1/balance/transactions?type=pix_fraud_return&currency=BRL', { apiKey: merchant.apiKey });
  expect(r.status).toBe(200);
  return (r.body.data as Array<{ type: string; amount: number; source_id: string }>).filter((t) => t.source_id === paymentId);
}
async function hook(disputeId: string, event: string, ok: (b: Record<string, unknown>) => boolean = () => true) {
  const [h] = await live.receiver.waitFor(1, 15_000, (r) => r.body?.event === event && r.body?.dispute_id === disputeId && ok(r.body));
  expect(verifyWebhook(h!.rawBody, h!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
  return h!.body as Record<string, unknown>;
}
/** The dispute's webhooks by type, sorted (webhooks carry no order guarantee). */
const hookTypes = (disputeId: string) =>
  live.receiver.received
    .filter((r) => r.body?.dispute_id === disputeId && String(r.body?.event).startsWith('dispute.'))
    .map((r) => String(r.body.event))
    .sort();
const settle = () => new Promise((r) => setTimeout(r, 400));
const pdf = () => Buffer.from('%PDF-1.4\ncomprovante\n%%EOF').toString('base64');

describe('a PIX MED infraction as a dispute', () => {
  it('opens pix_med (the infraction’s deadline, no reasons); text only; submit defends once at Efí; closed unreturned: won', async () => {
    const { paymentId, inf, disputeId } = await underInfraction(30, { deadlineDays: 7 });
    const before = await balance();

    const opened = await getDispute(disputeId);
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({
      dispute_id: disputeId,
      payment_id: paymentId,
      kind: 'pix_med',
      status: 'needs_response',
      reason: 'pix_fraud',
      provider_reason_code: 'scam',
      amount: 30,
      currency: 'BRL',
      evidence_due_by: inf.dadosAnalise!.prazoFinalizacao,
      evidence: null,
      livemode: true,
    });
    expect(opened.body.defense_reasons).toEqual([]);
    expect(await hook(disputeId, 'dispute.created')).toMatchObject({ kind: 'pix_med', status: 'needs_response' });

    // A MED defense is its text: documents and a defense reason are refused, by field; nothing staged.
    const docs = await stage(disputeId, {
      documents: [{ type: 'DefenseMaterial', mime: 'application/pdf', content_base64: pdf() }],
      text: TEXT,
    });
    expect([docs.status, docs.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((docs.body.error.details as Array<{ field: string }>).map((d) => d.field)).toEqual(['documents']);
    const reason = await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', text: TEXT });
    expect((reason.body.error.details as Array<{ field: string }>).map((d) => d.field)).toEqual(['defense_reason']);
    expect((await getDispute(disputeId)).body.evidence).toBeNull();
    const bare = await submit(disputeId);
    expect([bare.status, bare.body.error?.details]).toEqual([400, [expect.objectContaining({ field: 'evidence' })]]);
    expect((await stage(disputeId, {})).status).toBe(200); // nothing but an empty staging
    const textless = await submit(disputeId);
    expect([textless.status, textless.body.error?.details]).toEqual([400, [expect.objectContaining({ field: 'evidence.text' })]]);
    expect(defensePosts(inf.idInfracao)).toEqual([]);

    const staged = await stage(disputeId, { text: TEXT });
    expect(staged.status).toBe(200);
    expect(staged.body.evidence).toMatchObject({ defense_reason: null, text: TEXT, documents: [] });

    const key = `submit-${disputeId}`;
    const submitted = await submit(disputeId, key);
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ status: 'under_review', submitted_at: expect.any(String), last_error: null });
    expect(efi.defense(inf.idInfracao)).toEqual({ analise: 'rejeitado', justificativa: TEXT });
    expect(defensePosts(inf.idInfracao).map((r) => r.body)).toEqual([{ analise: 'rejeitado', justificativa: TEXT }]);
    expect(await hook(disputeId, 'dispute.updated', (b) => b.status === 'under_review')).toMatchObject({
      submitted_at: submitted.body.submitted_at,
    });

    // Its repeats (the same key, none, another) send nothing.
    const replayed = await submit(disputeId, key);
    expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect((await submit(disputeId)).body).toMatchObject({ status: 'under_review', submitted_at: submitted.body.submitted_at });
    expect((await submit(disputeId, `${key}-2`)).status).toBe(200);
    expect(efi.defenseAttempts(inf.idInfracao)).toBe(1);

    // Efí shows it under defense (EM_DEFESA): the job changes nothing; then Efí rejects the infraction: won.
    expect(await readInfractions()).toMatchObject({ applied: 0 });
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'under_review' });
    efi.closeInfraction(inf.idInfracao, 'not_returned');
    expect(await readInfractions()).toMatchObject({ applied: 1 });
    expect(await hook(disputeId, 'dispute.won')).toMatchObject({ kind: 'pix_med', status: 'won', closed_at: expect.any(String) });
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'won', closed_at: expect.any(String) });
    expect(await balance()).toBe(before);
    expect(await fraudReturns(paymentId)).toEqual([]);
    expect(await readInfractions()).toMatchObject({ applied: 0 });
    await settle();
    expect(hookTypes(disputeId)).toEqual(['dispute.created', 'dispute.updated', 'dispute.won'].sort());
    expect(efi.defenseAttempts(inf.idInfracao)).toBe(1);
  });

  it('a MED devolução after the defense loses it: dispute.lost and one pix_fraud_return debit, however often it is told', async () => {
    const { paymentId, e2e, inf, disputeId } = await underInfraction(40, { tipoSituacao: 'acesso fraudulento' });
    expect((await getDispute(disputeId)).body).toMatchObject({
      provider_reason_code: 'fraudulent_access',
      evidence_due_by: inf.dadosAnalise!.prazoFinalizacao,
    });
    expect((await stage(disputeId, { text: TEXT })).status).toBe(200);
    expect((await submit(disputeId)).body).toMatchObject({ status: 'under_review' });
    const before = await balance();

    // Efí accepts the infraction and returns the Pix: the job reads it.
    efi.closeInfraction(inf.idInfracao, 'returned');
    expect(await readInfractions()).toMatchObject({ applied: 1 });
    expect(await balance()).toBe(before - 4000);
    expect(await hook(disputeId, 'dispute.lost')).toMatchObject({
      kind: 'pix_med',
      status: 'lost',
      amount: 40,
      closed_at: expect.any(String),
    });
    expect(await fraudReturns(paymentId)).toEqual([expect.objectContaining({ type: 'pix_fraud_return', amount: -40 })]);
    // The same return told by the PSP's callback, and read again: nothing more.
    expect((await psp.medReturn(e2e, '40.00')).callback?.status).toBe(200);
    expect(await readInfractions()).toMatchObject({ applied: 0 });
    expect(await balance()).toBe(before - 4000);
    expect(await fraudReturns(paymentId)).toHaveLength(1);
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'lost' });
    expect((await submit(disputeId)).body.error?.code).toBe('DISPUTE_NOT_OPEN');
    await settle();
    expect(hookTypes(disputeId)).toEqual(['dispute.created', 'dispute.updated', 'dispute.lost'].sort());
    expect(efi.defenseAttempts(inf.idInfracao)).toBe(1);
  });

  it('Efí not answering the defense: 502, the dispute still needs its response; the retry defends once', async () => {
    const { inf, disputeId } = await underInfraction(25);
    expect((await stage(disputeId, { text: TEXT })).status).toBe(200);
    efi.failNext('medDefense', { status: 500 });
    const failed = await submit(disputeId, `s-${disputeId}`);
    expect([failed.status, failed.body.error?.code]).toEqual([502, 'PROVIDER_UNAVAILABLE']);
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'needs_response', last_error: null });
    expect(efi.defense(inf.idInfracao)).toBeUndefined();
    // Its answer lost after Efí took it: the retry reads the defense back as ours and sends nothing more.
    efi.failNext('medDefense', { lost: true });
    expect((await submit(disputeId, `s-${disputeId}`)).status).toBe(502);
    expect(efi.defense(inf.idInfracao)).toEqual({ analise: 'rejeitado', justificativa: TEXT });
    const done = await submit(disputeId, `s-${disputeId}`);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'under_review', last_error: null });
    expect(defensePosts(inf.idInfracao)).toHaveLength(2);
    expect(efi.defenseAttempts(inf.idInfracao)).toBe(1);
  });

  it('Efí having decided meanwhile (the job not yet run): 422 PROVIDER_REJECTED, last_error, nothing posted; then lost', async () => {
    const { paymentId, e2e, inf, disputeId } = await underInfraction(15);
    expect((await stage(disputeId, { text: TEXT })).status).toBe(200);
    efi.setInfraction(inf.idInfracao, 'ACEITA');
    const refused = await submit(disputeId);
    expect([refused.status, refused.body.error?.code]).toEqual([422, 'PROVIDER_REJECTED']);
    expect((await getDispute(disputeId)).body).toMatchObject({
      status: 'needs_response',
      submitted_at: null,
      last_error: { code: 'infraction_closed', at: expect.any(String) },
    });
    expect(await hook(disputeId, 'dispute.updated', (b) => b.last_error !== null)).toMatchObject({ status: 'needs_response' });
    expect(defensePosts(inf.idInfracao)).toEqual([]);
    // The return follows: lost, one debit.
    const before = await balance();
    efi.medReturn(e2e, '15.00');
    expect(await readInfractions()).toMatchObject({ applied: 1 });
    expect(await hook(disputeId, 'dispute.lost')).toMatchObject({ status: 'lost' });
    expect(await balance()).toBe(before - 1500);
    expect(await fraudReturns(paymentId)).toHaveLength(1);
  });

  it('past the infraction’s deadline: evidence and submit answer 409 DISPUTE_DEADLINE_PASSED without a call to Efí', async () => {
    const { id, e2e } = await paidPix(12);
    const inf = efi.openInfraction(e2e, { createdAt: new Date(Date.now() - 8 * 86_400_000), deadlineDays: 7 });
    expect(await readPixDisputes(paymentDeps(), new Date(), { windowSeconds: 10 * 86_400 })).toMatchObject({ applied: 1 });
    const disputeId = disputeIdOf(id);
    expect((await getDispute(disputeId)).body).toMatchObject({
      status: 'needs_response',
      evidence_due_by: inf.dadosAnalise!.prazoFinalizacao,
    });
    const before = efi.requests.length;
    const staged = await stage(disputeId, { text: TEXT });
    expect([staged.status, staged.body.error?.code]).toEqual([409, 'DISPUTE_DEADLINE_PASSED']);
    const late = await submit(disputeId);
    expect([late.status, late.body.error?.code]).toEqual([409, 'DISPUTE_DEADLINE_PASSED']);
    expect(efi.requests.length).toBe(before);
    expect(defensePosts(inf.idInfracao)).toEqual([]);
  });

  it('accept on a pix_med: accepted, nothing sent to Efí; a later return debits once and the dispute stays accepted', async () => {
    const { paymentId, e2e, inf, disputeId } = await underInfraction(20);
    expect((await stage(disputeId, { text: TEXT })).status).toBe(200);
    const before = efi.requests.length;
    const accepted = await accept(disputeId, `a-${disputeId}`);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({
      kind: 'pix_med',
      status: 'accepted',
      accepted_at: expect.any(String),
      closed_at: expect.any(String),
    });
    expect((await accept(disputeId, `a-${disputeId}`)).body).toEqual(accepted.body);
    expect((await accept(disputeId)).body).toMatchObject({ status: 'accepted', accepted_at: accepted.body.accepted_at });
    expect((await submit(disputeId)).body.error?.code).toBe('DISPUTE_NOT_OPEN');
    expect(efi.requests.length).toBe(before);
    expect(defensePosts(inf.idInfracao)).toEqual([]);
    expect(await hook(disputeId, 'dispute.updated', (b) => b.status === 'accepted')).toMatchObject({
      accepted_at: accepted.body.accepted_at,
    });

    const money = await balance();
    expect((await psp.medReturn(e2e, '20.00')).callback?.status).toBe(200);
    expect(await balance()).toBe(money - 2000);
    expect(await fraudReturns(paymentId)).toHaveLength(1);
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'accepted' });
    expect(efi.defenseAttempts(inf.idInfracao)).toBe(0);
  });
});
