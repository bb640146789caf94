/**
 * The SDK (sdk/src) against the local stack over real HTTP, disputes (DESIGN.md 9.4): sandbox.disputes.create on a
 * paid card and PIX test payment, disputes.retrieve with the defense reasons, updateEvidence, submit (decided by the
 * sandbox: won), accept, list followed through the cursor; and the error classes (NotFoundError for another
 * merchant's dispute, ValidationError naming the field, APIError 400 for a closed dispute).
 */
import { APIError, LatamPayments, NotFoundError, ValidationError, type DisputeEvidenceParams } from '../../sdk/src/index.ts';
import { startTestStack, type TestStack } from '../support/test-stack';
import { rejection, until } from '../support/sdk-waits';

jest.setTimeout(60_000);

let stack: TestStack;

beforeAll(async () => {
  Object.assign(process.env, { PAYOUT_SETTLEMENT_DELAY_SECONDS: '0' });
  stack = await startTestStack({ workers: true });
});
afterAll(async () => {
  await stack.stop();
});

const CUSTOMER = { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' };
const CARD = { number: '4242424242424242', holder_name: 'ANA SILVA', expiry_month: '12', expiry_year: '2040', cvv: '123' };
const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(200, 0x20)]).toString('base64');
const EVIDENCE: DisputeEvidenceParams = {
  defense_reason: 'SupplyDefenseMaterial',
  documents: [{ type: 'DefenseMaterial', mime: 'application/pdf', content_base64: pdf }],
  text: 'Delivered and signed for.',
};

async function client(): Promise<LatamPayments> {
  const m = await stack.createMerchant();
  return new LatamPayments({ apiKey: m.apiKey, baseUrl: stack.baseUrl, merchantId: m.merchantId });
}

/** A paid card test payment's id. */
async function paidCard(c: LatamPayments, amount = 40) {
  const p = await c.payments.create({ payment_method: 'card', amount, currency: 'BRL', country: 'BRA', customer: CUSTOMER, card: CARD });
  expect(p.status).toBe('success');
  return p.payment_id;
}

describe('disputes', () => {
  it('sandbox.disputes.create → retrieve (defense reasons) → updateEvidence → submit → won by the sandbox', async () => {
    const c = await client();
    const paymentId = await paidCard(c);
    const created = await c.sandbox.disputes.create(paymentId, { reason_code: '10.4' }, { idempotencyKey: `dsp-${Date.now()}` });
    expect(created).toMatchObject({
      success: true,
      dispute_id: `dsp_${paymentId.slice(3)}`,
      payment_id: paymentId,
      kind: 'chargeback',
      status: 'needs_response',
      reason: 'fraudulent',
      amount: 40,
    });
    expect(created.lastResponse.idempotencyKey).toMatch(/^dsp-/);
    const read = await c.disputes.retrieve(created.dispute_id);
    expect(read.defense_reasons?.map((r) => r.code)).toEqual(['SupplyDefenseMaterial', 'GoodsOrServicesProvided']);
    expect(read.defense_reasons?.[0]?.documents).toContainEqual({ type: 'DefenseMaterial', requirement: 'required' });

    const staged = await c.disputes.updateEvidence(created.dispute_id, EVIDENCE);
    expect(staged.evidence).toMatchObject({
      defense_reason: 'SupplyDefenseMaterial',
      text: 'Delivered and signed for.',
      documents: [{ type: 'DefenseMaterial', mime: 'application/pdf', size_bytes: 209 }],
    });
    const submitted = await c.disputes.submit(created.dispute_id);
    expect(submitted).toMatchObject({ status: 'under_review', submitted_at: expect.any(String) });
    const won = await until(
      () => c.disputes.retrieve(created.dispute_id),
      (d) => d.status === 'won',
    );
    expect(won.closed_at).toEqual(expect.any(String));
    expect(won.defense_reasons).toBeUndefined();
    const types: string[] = [];
    for await (const e of c.events.list({ object_id: created.dispute_id })) types.push(e.type);
    expect(types.sort()).toEqual(['dispute.created', 'dispute.updated', 'dispute.won']);
    const closed = await rejection(c.disputes.accept(created.dispute_id));
    expect(closed).toBeInstanceOf(APIError);
    expect(closed).toMatchObject({ status: 400, code: 'DISPUTE_NOT_OPEN' });
  });

  it('a PIX MED takes text; accept closes a chargeback; list filters by status and follows next_cursor', async () => {
    const c = await client();
    const pix = await c.payments.create({ payment_method: 'pix', amount: 25, currency: 'BRL', country: 'BRA', customer: CUSTOMER });
    await c.sandbox.payments.simulate(pix.payment_id, { outcome: 'success' });
    const med = await c.sandbox.disputes.create(pix.payment_id);
    expect(med).toMatchObject({ kind: 'pix_med', reason: 'pix_fraud' });
    expect((await c.disputes.updateEvidence(med.dispute_id, { text: 'The payer received the goods.' })).evidence?.text).toBe(
      'The payer received the goods.',
    );
    const ids = [med.dispute_id];
    for (let i = 0; i < 2; i++) ids.push((await c.sandbox.disputes.create(await paidCard(c, 10 + i))).dispute_id);
    const accepted = await c.disputes.accept(ids[1]!);
    expect(accepted).toMatchObject({ status: 'accepted', accepted_at: expect.any(String), closed_at: expect.any(String) });

    const first = await c.disputes.list({ limit: 2 });
    expect(first).toMatchObject({ has_more: true, next_cursor: ids[1], pagination: { total: 3 } });
    const seen: string[] = [];
    for await (const d of c.disputes.list({ limit: 1 })) seen.push(d.dispute_id);
    expect(seen).toEqual([...ids].reverse());
    expect((await c.disputes.list({ limit: 1 }).toArray({ limit: 2 })).map((d) => d.dispute_id)).toEqual(seen.slice(0, 2));
    const open = await c.disputes.list({ status: 'needs_response' }).toArray({ limit: 10 });
    expect(open.map((d) => d.dispute_id)).toEqual([ids[2], ids[0]]);
    const byPayment = await c.disputes.list({ payment_id: pix.payment_id });
    expect(byPayment.data.map((d) => d.dispute_id)).toEqual([med.dispute_id]);
  });

  it('errors: NotFoundError for another merchant’s dispute, ValidationError naming the field, nothing staged', async () => {
    const c = await client();
    const other = await client();
    const d = await c.sandbox.disputes.create(await paidCard(c));
    for (const call of [
      other.disputes.retrieve(d.dispute_id),
      other.disputes.updateEvidence(d.dispute_id, EVIDENCE),
      other.disputes.submit(d.dispute_id),
      other.disputes.accept(d.dispute_id),
    ]) {
      const e = await rejection(call);
      expect(e).toBeInstanceOf(NotFoundError);
      expect(e).toMatchObject({ status: 404, code: 'DISPUTE_NOT_FOUND' });
    }
    const notMine = await rejection(other.sandbox.disputes.create(d.payment_id));
    expect(notMine).toBeInstanceOf(NotFoundError);
    const badReason = await rejection(c.disputes.updateEvidence(d.dispute_id, { ...EVIDENCE, defense_reason: 'Teleported' }));
    expect(badReason).toBeInstanceOf(ValidationError);
    expect((badReason as ValidationError).details.map((x) => x.field)).toEqual(['defense_reason']);
    const badMime = await rejection(
      c.disputes.updateEvidence(d.dispute_id, {
        ...EVIDENCE,
        documents: [{ type: 'DefenseMaterial', mime: 'image/png' as 'image/jpeg', content_base64: pdf }],
      }),
    );
    expect((badMime as ValidationError).details.map((x) => x.field)).toEqual(['documents.0.mime']);
    const missing = await rejection(c.disputes.submit(d.dispute_id));
    expect((missing as ValidationError).details.map((x) => x.field)).toEqual(['evidence']);
    expect((await c.disputes.retrieve(d.dispute_id)).evidence).toBeNull();
  });
});
