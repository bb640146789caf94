/**
 * MED on live PIX payments (issue 33), over real HTTP on the local engines against the fake API Pix PSP (where the
 * Pix is received and its devoluções are told) and the fake Efí (whose infraction list the readPixDisputes job
 * reads): an infraction puts a `fraud_return` dispute on the payment (payment.disputed, signed, with the reason
 * and the deadline; nothing moves), closed without a return it is won (payment.dispute_won; nothing moves); a MED
 * devolução loses it with one `pix_fraud_return` debit (payment.dispute_lost), whichever path sees it and however
 * often; an ordinary refund devolução keeps its own path. After every case the live ledger equals the balance and
 * neither fake saw a request off its schema.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { handler as readPixDisputesJob } from '../../functions/jobs/read-pix-disputes.handler';
import { readPixDisputes } from '../../shared/application/rails';
import { paymentDeps } from '../../shared/wiring';
import type { FakeEfi } from '../support/fake-efi';
import type { FakePsp } from '../support/fake-psp';
import { startPixMedStage, type PixMedStage } from '../support/pix-med-stage';
import { verifyWebhook } from '../support/merchant-verify';
import { customer } from '../support/payments';
import { balanceMinorOf, expectLedgerEqualsBalance, type LiveMerchant, type LiveStage } from '../support/live-stage';

let psp: FakePsp;
let efi: FakeEfi;
let live: LiveStage;
let merchant: LiveMerchant;

let stage: PixMedStage;

beforeAll(async () => {
  stage = await startPixMedStage('Loja MED');
  ({ psp, efi, live, merchant } = stage);
});

afterEach(async () => {
  expect(psp.violations).toEqual([]);
  expect(efi.violations).toEqual([]);
  await expectLedgerEqualsBalance(live.stack, merchant, 'BRL');
});

afterAll(async () => {
  await stage?.stop();
});

const txidOf = (paymentId: string) => `pi${Buffer.from(paymentId.slice(3), 'base64url').toString('hex')}`;
const balance = (m: LiveMerchant = merchant) => balanceMinorOf(live.stack, m.apiKey, 'BRL');
const status = (id: string, m: LiveMerchant = merchant) =>
  live.stack.request(`/cashier/cashier/status/${m.merchantId}/${id}`, { apiKey: m.apiKey });
const hooksFor = (id: string) => live.receiver.received.filter((r) => r.body?.payment_id === id).map((r) => r.body?.event as string);
const disputeHooks = (id: string) => hooksFor(id).filter((e) => e.startsWith('payment.dispute'));
async function hook(id: string, event: string, m: LiveMerchant = merchant) {
  const [h] = await live.receiver.waitFor(1, 15_000, (r) => r.body?.event === event && r.body?.payment_id === id);
  expect(verifyWebhook(h!.rawBody, h!.headers as Record<string, string>, m.webhookSecret).ok).toBe(true);
  return h!.body as Record<string, unknown>;
}
async function fraudReturns(id: string, m: LiveMerchant = merchant) {
  const r = await live.stack.request('/api/v1/balance/transactions?type=pix_fraud_return&currency=BRL', { apiKey: m.apiKey });
  expect(r.status).toBe(200);
  return (r.body.data as Array<{ type: string; amount: number; source_id: string; description: string }>).filter((t) => t.source_id === id);
}
/** A live PIX payment paid at the PSP (its callback settles it), and the same Pix as Efí lists it (one PSP in production). */
async function paidPix(amount: number, m: LiveMerchant = merchant) {
  const r = await live.stack.request('/cashier/cashier/payment', {
    method: 'POST',
    apiKey: m.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ payment_method: 'pix', amount, currency: 'BRL', country: 'BRA', customer }),
  });
  expect(r.status).toBe(200);
  const id = r.body.payment_id as string;
  const paid = await psp.pay(txidOf(id));
  expect(paid.callbackStatus).toBe(200);
  expect((await status(id, m)).body.status).toBe('success');
  efi.receive(amount.toFixed(2), { endToEndId: paid.endToEndId, txid: txidOf(id) });
  return { id, e2e: paid.endToEndId };
}
const readInfractions = () => readPixDisputes(paymentDeps(), new Date(), { windowSeconds: 86_400 });
const settle = () => new Promise((r) => setTimeout(r, 400));

describe('MED on live PIX payments', () => {
  it('an infraction: payment.disputed (signed) with reason and deadline, nothing moves; closed without a return: won', async () => {
    const { id, e2e } = await paidPix(30);
    const before = await balance();
    const inf = efi.openInfraction(e2e, { tipoSituacao: 'golpe', deadlineDays: 7 });

    // The scheduled job itself, as EventBridge invokes it.
    const context = { getRemainingTimeInMillis: () => 60_000, functionName: 'readPixDisputesJob', awsRequestId: 'med-1' } as Context;
    const run = await readPixDisputesJob({ time: new Date().toISOString() } as ScheduledEvent, context);
    expect(run).toMatchObject({ configured: 1, failed: 0, applied: 1 });

    const disputed = await hook(id, 'payment.disputed');
    const dispute = {
      kind: 'fraud_return',
      status: 'open',
      amount: 30,
      currency: 'BRL',
      reason_code: 'scam',
      deadline: inf.dadosAnalise!.prazoFinalizacao,
      opened_at: inf.dadosAnalise!.abertura,
      closed_at: null,
    };
    expect(disputed).toMatchObject({ status: 'success', dispute });
    expect((await status(id)).body).toMatchObject({ status: 'success', dispute });
    expect(await balance()).toBe(before);
    expect(await fraudReturns(id)).toEqual([]);
    // While the case is open the PSP holds the funds: a refund could pay the payer twice, so it is refused.
    const refund = await live.stack.request(`/api/v1/payments/${id}/refunds`, {
      method: 'POST',
      apiKey: merchant.apiKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect(refund.status).toBe(409);
    expect((await paymentDeps().refunds.listByPayment(id)).length).toBe(0);

    // Read again (every run reads the whole window): nothing new.
    expect(await readInfractions()).toMatchObject({ applied: 0 });
    // The case under defense, then closed in the merchant's favour.
    efi.setInfraction(inf.idInfracao, 'EM_DEFESA');
    expect(await readInfractions()).toMatchObject({ applied: 0 });
    efi.setInfraction(inf.idInfracao, 'REJEITADA');
    expect(await readInfractions()).toMatchObject({ applied: 1 });
    expect(await hook(id, 'payment.dispute_won')).toMatchObject({
      dispute: { kind: 'fraud_return', status: 'won', closed_at: expect.any(String) },
    });
    expect(await balance()).toBe(before);
    expect(await fraudReturns(id)).toEqual([]);
    await settle();
    expect(disputeHooks(id)).toEqual(['payment.disputed', 'payment.dispute_won']);
  });

  it('Efí not answering: the run counts a failed read (the alarm metric) and the next run applies what it missed', async () => {
    const { id, e2e } = await paidPix(12);
    efi.openInfraction(e2e);
    efi.failNext('listInfractions', { status: 503 }, 2); // the call and its one retry
    const context = { getRemainingTimeInMillis: () => 60_000, functionName: 'readPixDisputesJob', awsRequestId: 'med-2' } as Context;
    expect(await readPixDisputesJob({ time: new Date().toISOString() } as ScheduledEvent, context)).toMatchObject({
      configured: 1,
      failed: 1,
      applied: 0,
    });
    expect((await status(id)).body.dispute).toBeUndefined();
    expect(await readPixDisputesJob({ time: new Date().toISOString() } as ScheduledEvent, context)).toMatchObject({
      failed: 0,
      applied: 1,
    });
    await hook(id, 'payment.disputed');
  });

  it('a MED devolução on the PSP callback: one pix_fraud_return debit, dispute_lost; duplicates and the job move nothing', async () => {
    const { id, e2e } = await paidPix(40);
    const inf = efi.openInfraction(e2e, { tipoSituacao: 'acesso fraudulento' });
    expect(await readInfractions()).toMatchObject({ applied: 1 });
    await hook(id, 'payment.disputed');
    const before = await balance();

    const returned = await psp.medReturn(e2e, '40.00');
    expect(returned.callback?.status).toBe(200);
    expect(await balance()).toBe(before - 4000);
    const lost = await hook(id, 'payment.dispute_lost');
    expect(lost).toMatchObject({
      status: 'success',
      dispute: { kind: 'fraud_return', status: 'lost', amount: 40, reason_code: 'fraudulent_access', closed_at: expect.any(String) },
    });
    expect(await fraudReturns(id)).toEqual([expect.objectContaining({ type: 'pix_fraud_return', amount: -40, source_id: id })]);

    // The PSP tells it again (its retries), twice at once and once more: read back each time, debited once.
    const again = await Promise.all([psp.sendCallback({ pix: [returned.pix] }), psp.sendCallback({ pix: [returned.pix] })]);
    expect(again.map((a) => a.status)).toEqual([200, 200]);
    expect((await psp.sendCallback({ pix: [returned.pix] })).status).toBe(200);
    // Efí's side of the same case: accepted, returned; the job reads it and moves nothing more.
    efi.setInfraction(inf.idInfracao, 'ACEITA');
    efi.medReturn(e2e, '40.00');
    expect(await readInfractions()).toMatchObject({ applied: 0 });
    expect(await balance()).toBe(before - 4000);
    expect(await fraudReturns(id)).toHaveLength(1);
    await settle();
    expect(disputeHooks(id)).toEqual(['payment.disputed', 'payment.dispute_lost']);
    expect((await status(id)).body).toMatchObject({ status: 'success', dispute: { status: 'lost', amount: 40 } });
  });

  it('a partial MED_OPERACIONAL return seen first by the infraction read: disputed and lost at once, its amount debited', async () => {
    const { id, e2e } = await paidPix(25);
    const before = await balance();
    const inf = efi.openInfraction(e2e);
    efi.setInfraction(inf.idInfracao, 'ACEITA');
    efi.medReturn(e2e, '10.00', 'MED_OPERACIONAL');
    expect(await readInfractions()).toMatchObject({ applied: 1 });
    expect(await balance()).toBe(before - 1000);
    expect(await hook(id, 'payment.dispute_lost')).toMatchObject({ dispute: { status: 'lost', amount: 10, reason_code: 'other' } });
    expect(await fraudReturns(id)).toEqual([expect.objectContaining({ amount: -10 })]);
    // The same return told later by the API Pix PSP: read back, nothing more.
    expect((await psp.medReturn(e2e, '10.00', { natureza: 'MED_OPERACIONAL' })).callback?.status).toBe(200);
    expect(await balance()).toBe(before - 1000);
    await settle();
    // Both events of one transaction: delivered each once, in either order (webhooks carry no order guarantee).
    expect([...disputeHooks(id)].sort()).toEqual(['payment.disputed', 'payment.dispute_lost'].sort());
    // A further return of the same Pix: only the new part is debited, and the merchant is told the new total.
    const further = await psp.medReturn(e2e, '5.00');
    expect(further.callback?.status).toBe(200);
    expect(await balance()).toBe(before - 1500);
    const [second] = await live.receiver.waitFor(
      1,
      15_000,
      (r) =>
        r.body?.event === 'payment.dispute_lost' && r.body?.payment_id === id && (r.body?.dispute as { amount?: number })?.amount === 15,
    );
    expect(second).toBeDefined();
    expect((await fraudReturns(id)).map((t) => t.amount).sort()).toEqual([-10, -5]);
    // Told again (and Efí's read, which shows only the first return): nothing more.
    expect((await psp.sendCallback({ pix: [further.pix] })).status).toBe(200);
    expect(await readInfractions()).toMatchObject({ applied: 0 });
    expect(await balance()).toBe(before - 1500);
  });

  it('a forged callback claiming a MED return the PSP does not hold moves nothing (the Pix is read back)', async () => {
    const { id, e2e } = await paidPix(15);
    const before = await balance();
    const forged = {
      endToEndId: e2e,
      txid: txidOf(id),
      valor: '15.00',
      horario: new Date().toISOString(),
      devolucoes: [
        {
          id: 'MEDFORGED0001',
          rtrId: `D12345678${'0'.repeat(12)}abcdefghijk`,
          valor: '15.00',
          natureza: 'MED_FRAUDE',
          horario: { solicitacao: new Date().toISOString(), liquidacao: new Date().toISOString() },
          status: 'DEVOLVIDO',
        },
      ],
    };
    expect((await psp.sendCallback({ pix: [forged] })).status).toBe(200);
    expect(await balance()).toBe(before);
    expect((await status(id)).body.dispute).toBeUndefined();
    await settle();
    expect(disputeHooks(id)).toEqual([]);
  });

  it('a MED return after the merchant refunded the payment takes the balance below zero (the money left twice)', async () => {
    const created = await live.stack.admin.createMerchant({ name: 'Loja MED Negativa', notification_url: live.receiver.url });
    const key = await live.stack.admin.createKey(created.merchant.merchant_id, 'live');
    const m: LiveMerchant = { merchantId: created.merchant.merchant_id, apiKey: key.secret, webhookSecret: created.webhookSecret };
    psp.setDevolucaoOutcome('DEVOLVIDO');
    const { id, e2e } = await paidPix(50, m);
    const refund = await live.stack.request(`/api/v1/payments/${id}/refunds`, {
      method: 'POST',
      apiKey: m.apiKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect(refund.status).toBe(200);
    await live.receiver.waitFor(1, 20_000, (r) => r.body?.event === 'refund.succeeded' && r.body?.refund_id === refund.body.refund_id);
    expect(await balance(m)).toBe(0);
    expect((await psp.medReturn(e2e, '50.00')).callback?.status).toBe(200);
    expect(await balance(m)).toBe(-5000);
    await hook(id, 'payment.dispute_lost', m);
    await expectLedgerEqualsBalance(live.stack, m, 'BRL');
  });

  it('an ordinary refund devolução keeps its own path: refund.succeeded, a refund entry, no dispute', async () => {
    psp.setDevolucaoOutcome('EM_PROCESSAMENTO');
    const { id, e2e } = await paidPix(20);
    const before = await balance();
    const r = await live.stack.request(`/api/v1/payments/${id}/refunds`, {
      method: 'POST',
      apiKey: merchant.apiKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 5 }),
    });
    expect(r.status).toBe(200);
    const refundId = r.body.refund_id as string;
    const devolucaoId = `re${Buffer.from(refundId.slice(3), 'base64url').toString('hex')}`;
    for (let i = 0; i < 100 && !psp.requests.some((q) => q.method === 'PUT' && q.path.endsWith(`/devolucao/${devolucaoId}`)); i++)
      await new Promise((res) => setTimeout(res, 50));
    await psp.settleDevolucao(e2e, devolucaoId, 'DEVOLVIDO');
    await live.receiver.waitFor(1, 20_000, (h) => h.body?.event === 'refund.succeeded' && h.body?.refund_id === refundId);
    expect(await balance()).toBe(before - 500);
    expect(await fraudReturns(id)).toEqual([]);
    const body = (await status(id)).body;
    expect(body).toMatchObject({ status: 'success', refunded_amount: 5 });
    expect(body.dispute).toBeUndefined();
    await settle();
    expect(disputeHooks(id)).toEqual([]);
  });
});
