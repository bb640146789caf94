/**
 * The SDK (sdk/src) against the local stack over real HTTP, mandates (DESIGN.md 9.3): mandates.create, approved by
 * the sandbox (by document, or sandbox.mandates.simulate), mandates.charges.create, list followed through the
 * cursor, cancel; and the error classes (NotFoundError for another merchant's mandate, ValidationError naming the
 * field, APIError 409 for a state conflict).
 */
import { APIError, LatamPayments, NotFoundError, ValidationError, type MandateCreateParams } from '../../sdk/src/index.ts';
import { addDays } from '../../shared/domain/mandates/mandate';
import { localToday } from '../../shared/domain/mandates/mandate';
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

const today = () => localToday(new Date());
const params = (over: Partial<MandateCreateParams> = {}): MandateCreateParams => ({
  country: 'BRA',
  currency: 'BRL',
  method: 'pix_automatico',
  customer: { name: 'Ana Silva', email: 'ana@example.com', document: '00000000191' },
  description: 'Gym membership',
  frequency: 'monthly',
  amount: 99.9,
  start_date: today(),
  ...over,
});

async function client(): Promise<LatamPayments> {
  const m = await stack.createMerchant();
  return new LatamPayments({ apiKey: m.apiKey, baseUrl: stack.baseUrl, merchantId: m.merchantId });
}

describe('mandates', () => {
  it('create → approved by the sandbox → charge → cancel; the charge is a payment with mandate_id', async () => {
    const c = await client();
    const created = await c.mandates.create(params(), { idempotencyKey: `md-${Date.now()}` });
    expect(created).toMatchObject({ success: true, status: 'pending_approval', mandate_id: expect.stringMatching(/^md_/) });
    expect(created.approval).toMatchObject({ type: 'pix_qr', pix_code: expect.stringContaining('br.gov.bcb.pix') });
    expect(created.lastResponse.idempotencyKey).toMatch(/^md-/);
    const active = await until(
      () => c.mandates.retrieve(created.mandate_id),
      (m) => m.status === 'active',
    );
    expect(active.approved_at).toEqual(expect.any(String));

    const due = addDays(today(), 5);
    const charge = await c.mandates.charges.create(created.mandate_id, { amount: 99.9, due_date: due });
    expect(charge).toMatchObject({ payment_id: expect.stringMatching(/^pi_/), status: 'pending', mandate_id: created.mandate_id });
    expect(await c.sandbox.payments.simulate(charge.payment_id, { outcome: 'success' })).toMatchObject({ status: 'success' });
    expect((await c.mandates.retrieve(created.mandate_id)).charges_count).toBe(1);

    const cancelled = await c.mandates.cancel(created.mandate_id);
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelled_by: 'merchant' });
    const again = await rejection(c.mandates.cancel(created.mandate_id));
    expect(again).toBeInstanceOf(APIError);
    expect(again).toMatchObject({ status: 409, code: 'MANDATE_STATE_CONFLICT' });
    const late = await rejection(c.mandates.charges.create(created.mandate_id, { amount: 99.9, due_date: due }));
    expect(late).toMatchObject({ status: 409, code: 'MANDATE_NOT_ACTIVE' });
  });

  it('a card mandate charged at once; sandbox.mandates.simulate payer_cancel ends it (cancelled_by payer)', async () => {
    const c = await client();
    const created = await c.mandates.create(params({ method: 'card', amount: 25 }));
    expect(created.approval).toEqual({ type: 'redirect', url: `${stack.baseUrl}/sandbox/mandate/${created.mandate_id}` });
    await until(
      () => c.mandates.retrieve(created.mandate_id),
      (m) => m.status === 'active',
    );
    const charge = await c.mandates.charges.create(created.mandate_id, { amount: 25, due_date: today() });
    expect(charge).toMatchObject({ status: 'success', payment_method: 'card', mandate_id: created.mandate_id });
    const ended = await c.sandbox.mandates.simulate(created.mandate_id, { outcome: 'payer_cancel' });
    expect(ended).toMatchObject({ status: 'cancelled', cancelled_by: 'payer' });
    const conflict = await rejection(c.sandbox.mandates.simulate(created.mandate_id, { outcome: 'approve' }));
    expect(conflict).toMatchObject({ status: 409, code: 'MANDATE_STATE_CONFLICT' });
  });

  it('list: newest first, filtered by status; for await follows next_cursor through every page', async () => {
    const c = await client();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await c.mandates.create(params({ description: `Plan ${i}` }))).mandate_id);
    const first = await c.mandates.list({ limit: 2 });
    expect(first).toMatchObject({ has_more: true, next_cursor: ids[1], pagination: { total: 3 } });
    const seen: string[] = [];
    for await (const m of c.mandates.list({ limit: 1 })) seen.push(m.mandate_id);
    expect(seen).toEqual([...ids].reverse());
    expect((await c.mandates.list({ limit: 1 }).toArray({ limit: 2 })).map((m) => m.mandate_id)).toEqual(seen.slice(0, 2));
    await c.mandates.cancel(ids[0]!);
    const cancelled = await c.mandates.list({ status: 'cancelled' }).toArray({ limit: 10 });
    expect(cancelled.map((m) => m.mandate_id)).toEqual([ids[0]]);
  });

  it('errors: NotFoundError for another merchant’s mandate, ValidationError naming the field, nothing written', async () => {
    const c = await client();
    const other = await client();
    const id = (await c.mandates.create(params())).mandate_id;
    for (const call of [
      other.mandates.retrieve(id),
      other.mandates.cancel(id),
      other.sandbox.mandates.simulate(id, { outcome: 'approve' }),
    ]) {
      const e = await rejection(call);
      expect(e).toBeInstanceOf(NotFoundError);
      expect(e).toMatchObject({ status: 404, code: 'MANDATE_NOT_FOUND' });
    }
    const bad = await rejection(c.mandates.create(params({ frequency: 'daily' as MandateCreateParams['frequency'] })));
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).details.map((d) => d.field)).toContain('frequency');
    const both = await rejection(c.mandates.create(params({ max_amount: 120 })));
    expect(both).toBeInstanceOf(ValidationError);
    expect((both as ValidationError).details.map((d) => d.field)).toEqual(['max_amount']);
    const outcome = await rejection(c.sandbox.mandates.simulate(id, { outcome: 'teleport' as 'approve' }));
    expect((outcome as ValidationError).details.map((d) => d.field)).toContain('outcome');
    expect((await c.mandates.list()).pagination.total).toBe(1);
  });
});
