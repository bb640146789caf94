/** Mandates over HTTP on the local engines (DESIGN.md 9.3): sandbox approval by document, charges per cycle, cancel, list, bad input. */
import { isValidBrCodeCrc } from '../../shared/domain/payments/pix-brcode';
import { addDays, localToday } from '../../shared/domain/mandates/mandate';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { handler as reconcileProviders } from '../../functions/jobs/reconcile-providers.handler';
import { mandateDeps } from '../../shared/wiring';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';
import { balanceMinor } from '../support/payments';
import { startReceiver, type Receiver } from '../support/receiver';

jest.setTimeout(60_000);

let stack: TestStack;
let receiver: Receiver;

beforeAll(async () => {
  Object.assign(process.env, { PAYOUT_SETTLEMENT_DELAY_SECONDS: '0', WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE: '0,1' });
  stack = await startTestStack({ workers: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.stop();
  await stack.stop();
});

const today = () => localToday(new Date());
const APPROVES = '00000000191';
const REJECTS = '00000000272';

const mandateBody = (over: Record<string, unknown> = {}) => ({
  country: 'BRA',
  currency: 'BRL',
  method: 'pix_automatico',
  customer: { name: 'Ana Silva', email: 'ana@example.com', document: APPROVES },
  description: 'Gym membership',
  frequency: 'monthly',
  amount: 99.9,
  start_date: today(),
  ...over,
});

function client(m: TestMerchant) {
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    stack.request(path, {
      method,
      apiKey: m.apiKey,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    call,
    create: (over: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
      call('POST', '/api/v1/mandates', mandateBody(over), headers),
    get: (id: string) => call('GET', `/api/v1/mandates/${id}`),
    list: (q = '') => call('GET', `/api/v1/mandates${q}`),
    cancel: (id: string) => call('POST', `/api/v1/mandates/${id}/cancel`),
    charge: (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      call('POST', `/api/v1/mandates/${id}/charges`, body, headers),
    simulate: (paymentId: string, outcome: 'success' | 'failed') =>
      call('POST', `/api/v1/sandbox/payments/${paymentId}/simulate`, { outcome }),
  };
}

async function waitForStatus(c: ReturnType<typeof client>, id: string, status: string) {
  const end = Date.now() + 15_000;
  for (;;) {
    const r = await c.get(id);
    if (r.body.status === status) return r.body;
    if (Date.now() > end) throw new Error(`mandate ${id} is ${r.body.status}, not ${status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

const hooks = (type: string, id: string) => receiver.waitFor(1, 15_000, (r) => r.body?.event === type && r.body?.mandate_id === id);

async function active(c: ReturnType<typeof client>, over: Record<string, unknown> = {}) {
  const r = await c.create(over);
  expect(r.status).toBe(200);
  await waitForStatus(c, r.body.mandate_id, 'active');
  return r.body.mandate_id as string;
}

describe('create and the sandbox approval', () => {
  it('Pix Automático by QR: pending_approval with a recurrence BR Code, approved by document, a signed mandate.approved', async () => {
    const m = await stack.createMerchant({ notification_url: receiver.url });
    const c = client(m);
    const r = await c.create();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'pending_approval', method: 'pix_automatico', amount: 99.9, max_amount: null });
    expect(r.body.mandate_id).toMatch(/^md_/);
    expect(r.body.approval.type).toBe('pix_qr');
    expect(isValidBrCodeCrc(r.body.approval.pix_code)).toBe(true);
    expect(r.body.approval.pix_code).toContain('br.gov.bcb.pix');
    expect(r.body.approval.pix_qr_code_base64).toMatch(/^data:image\/png;base64,/);
    expect(r.body.customer.document).not.toContain(APPROVES);
    const [hook] = await hooks('mandate.approved', r.body.mandate_id);
    expect(hook!.body).toMatchObject({ status: 'active', mandate_id: r.body.mandate_id, frequency: 'monthly' });
    expect(hook!.headers['x-signature']).toBeTruthy();
    expect((await c.get(r.body.mandate_id)).body).toMatchObject({ status: 'active', approved_at: expect.any(String) });
  });

  it('a push request with payer (Jornada 1), and a card mandate with a redirect, both approved', async () => {
    const c = client(await stack.createMerchant());
    const pushed = await c.create({
      payer: { bank_ispb: '60746948', agency: '1234', account: '0012345678' },
      amount: undefined,
      max_amount: 300,
    });
    expect(pushed.status).toBe(200);
    expect(pushed.body.approval).toEqual({ type: 'pix_request' });
    expect(pushed.body.payer).toEqual({ bank_ispb: '60746948', agency: '1234', account_masked: '****5678' });
    const card = await c.create({ method: 'card', frequency: 'annual' });
    expect(card.body.approval).toEqual({ type: 'redirect', url: expect.stringMatching(/\/sandbox\/mandate\/md_/) });
    expect((await waitForStatus(c, card.body.mandate_id, 'active')).card).toEqual({ brand: 'visa', last_four: '4242' });
    await waitForStatus(c, pushed.body.mandate_id, 'active');
  });

  it('rejected by document 00000000272, with mandate.rejected; a rejected mandate cannot be charged or cancelled', async () => {
    const m = await stack.createMerchant({ notification_url: receiver.url });
    const c = client(m);
    const r = await c.create({ customer: { name: 'Ana Silva', email: 'ana@example.com', document: REJECTS } });
    const [hook] = await hooks('mandate.rejected', r.body.mandate_id);
    expect(hook!.body).toMatchObject({ status: 'rejected', failure_code: 'payer_rejected' });
    const charge = await c.charge(r.body.mandate_id, { amount: 99.9, due_date: addDays(today(), 5) });
    expect(charge.status).toBe(409);
    expect(JSON.stringify(charge.body)).toContain('MANDATE_NOT_ACTIVE');
    expect((await c.cancel(r.body.mandate_id)).status).toBe(409);
  });

  it('document 00000000434 is never decided on its own: it waits for the payer (simulate)', async () => {
    const c = client(await stack.createMerchant());
    const held = await c.create({ customer: { name: 'Ana Silva', email: 'ana@example.com', document: '00000000434' } });
    await waitForStatus(c, (await c.create()).body.mandate_id, 'active'); // the decisions queued with it were made
    expect((await c.get(held.body.mandate_id)).body.status).toBe('pending_approval');
    const r = await c.call('POST', `/api/v1/sandbox/mandates/${held.body.mandate_id}/simulate`, { outcome: 'approve' });
    expect(r.body).toMatchObject({ status: 'active' });
  });

  it('an active mandate past its end date expires when the job runs; a cancelled one leaves the job for good', async () => {
    const m = await stack.createMerchant({ notification_url: receiver.url });
    const c = client(m);
    const ending = await active(c, { end_date: addDays(today(), 1) });
    const cancelled = await active(c, { end_date: addDays(today(), 1) });
    expect((await c.cancel(cancelled)).status).toBe(200);
    const job = (seconds: number) =>
      reconcileProviders(
        { time: new Date(Date.now() + seconds * 1000).toISOString() } as ScheduledEvent,
        { getRemainingTimeInMillis: () => 60_000, functionName: 'reconcile-providers' } as Context,
      );
    await job(60);
    expect((await c.get(ending)).body.status).toBe('active');
    await job(3 * 86_400);
    expect((await c.get(ending)).body).toMatchObject({ status: 'expired', ended_at: expect.any(String) });
    await hooks('mandate.expired', ending);
    expect((await c.get(cancelled)).body.status).toBe('cancelled');
    expect(await mandateDeps().mandates.dueForCheck(new Date(Date.now() + 3 * 86_400_000).toISOString(), 100)).not.toContain(cancelled);
  });

  it('a keyed create answered twice is one mandate', async () => {
    const c = client(await stack.createMerchant());
    const headers = { 'x-idempotency-key': `md-${Date.now()}` };
    const a = await c.create({}, headers);
    const b = await c.create({}, headers);
    expect(b.body.mandate_id).toBe(a.body.mandate_id);
    expect((await c.list()).body.pagination.total).toBe(1);
  });
});

describe('bad input: 400 naming the field, nothing written', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['unknown frequency', { frequency: 'daily' }, 'frequency'],
    ['both amount and max_amount', { amount: 10, max_amount: 20 }, 'max_amount'],
    ['neither amount nor max_amount', { amount: undefined }, 'amount'],
    ['a start date in the past', { start_date: addDays(today(), -1) }, 'start_date'],
    ['an end date before the start', { start_date: addDays(today(), 3), end_date: addDays(today(), 2) }, 'end_date'],
    ['a currency the method does not serve', { currency: 'MXN' }, 'currency'],
    ['a country Pix Automático does not serve', { country: 'MEX', currency: 'MXN' }, 'country'],
    ['a malformed ISPB', { payer: { bank_ispb: '1234' } }, 'payer.bank_ispb'],
    ['a payer on a card mandate', { method: 'card', payer: { bank_ispb: '60746948' } }, 'payer'],
    ['an unknown field', { trial_days: 7 }, 'trial_days'],
    ['a bad document', { customer: { name: 'Ana Silva', email: 'ana@example.com', document: '123' } }, 'customer.document'],
  ];
  it.each(cases)('%s', async (_what, over, field) => {
    const c = client(await stack.createMerchant());
    const r = await c.create(over);
    expect(r.status).toBe(400);
    expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await c.list()).body.pagination.total).toBe(0);
  });
});

describe('charges', () => {
  it('Pix Automático: pending with mandate_id, one per cycle (a failed one too: the PSP retries), success credited once', async () => {
    const m = await stack.createMerchant({ notification_url: receiver.url });
    const c = client(m);
    const id = await active(c);
    const due = addDays(today(), 5);
    const before = await balanceMinor(m);
    const first = await c.charge(id, { amount: 99.9, due_date: due });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'pending', mandate_id: id, due_date: due, payment_method: 'pix', amount: 99.9 });
    const again = await c.charge(id, { amount: 99.9, due_date: addDays(due, 1) });
    expect(again.status).toBe(409);
    expect(JSON.stringify(again.body)).toContain('MANDATE_CYCLE_ALREADY_CHARGED');
    expect((await c.simulate(first.body.payment_id, 'success')).status).toBe(200);
    const paid = (r: { body?: { event?: string; payment_id?: string } }) =>
      r.body?.event === 'payment.success' && r.body?.payment_id === first.body.payment_id;
    const [hook] = await receiver.waitFor(1, 15_000, paid);
    expect(hook!.body).toMatchObject({ mandate_id: id, due_date: due });
    expect((await balanceMinor(m)) - before).toBe(9990);
    expect((await c.get(id)).body.charges_count).toBe(1);

    const other = await active(c);
    const failed = await c.charge(other, { amount: 99.9, due_date: due });
    expect((await c.simulate(failed.body.payment_id, 'failed')).status).toBe(200);
    const retried = await c.charge(other, { amount: 99.9, due_date: due });
    expect(retried.status).toBe(409);
    expect(JSON.stringify(retried.body)).toContain('retry policy');
    expect((await c.get(other)).body.charges_count).toBe(1);
  });

  it('each rule refused before anything is written: amount, fixed amount, window, outside the mandate', async () => {
    const c = client(await stack.createMerchant());
    const id = await active(c, { amount: undefined, max_amount: 100, end_date: addDays(today(), 40) });
    const expectError = async (body: Record<string, unknown>, status: number, code: string) => {
      const r = await c.charge(id, body);
      expect(r.status).toBe(status);
      expect(JSON.stringify(r.body)).toContain(code);
    };
    await expectError({ amount: 100.01, due_date: addDays(today(), 5) }, 400, 'MANDATE_AMOUNT_EXCEEDED');
    await expectError({ amount: 50, due_date: addDays(today(), 1) }, 400, 'DUE_DATE_OUTSIDE_WINDOW');
    await expectError({ amount: 50, due_date: addDays(today(), 11) }, 400, 'DUE_DATE_OUTSIDE_WINDOW');
    await expectError({ amount: 50, due_date: '2026-02-30' }, 400, 'due_date');
    await expectError({ amount: 0, due_date: addDays(today(), 5) }, 400, 'amount');
    expect((await c.get(id)).body.charges_count).toBe(0);
    const fixed = await active(c);
    const r = await c.charge(fixed, { amount: 50, due_date: addDays(today(), 5) });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('amount');
  });

  it('card on file: charged at once (due today), credited; a keyed retry is the same payment', async () => {
    const m = await stack.createMerchant();
    const c = client(m);
    const id = await active(c, { method: 'card', amount: 25 });
    const before = await balanceMinor(m);
    const headers = { 'x-idempotency-key': `ch-${Date.now()}` };
    const r = await c.charge(id, { amount: 25, due_date: today() }, headers);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'success', payment_method: 'card', mandate_id: id });
    expect((await c.charge(id, { amount: 25, due_date: today() }, headers)).body.payment_id).toBe(r.body.payment_id);
    expect((await balanceMinor(m)) - before).toBe(2500);
    const tomorrow = await c.charge(id, { amount: 25, due_date: addDays(today(), 1) });
    expect(JSON.stringify(tomorrow.body)).toContain('DUE_DATE_OUTSIDE_WINDOW');
  });
});

describe('cancel, read and list', () => {
  it('cancel: mandate.cancelled by merchant; then no charge; a second cancel is 409', async () => {
    const m = await stack.createMerchant({ notification_url: receiver.url });
    const c = client(m);
    const id = await active(c);
    const r = await c.cancel(id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'cancelled', cancelled_by: 'merchant', ended_at: expect.any(String) });
    await hooks('mandate.cancelled', id);
    expect(JSON.stringify((await c.charge(id, { amount: 99.9, due_date: addDays(today(), 5) })).body)).toContain('MANDATE_NOT_ACTIVE');
    const again = await c.cancel(id);
    expect(again.status).toBe(409);
    expect(JSON.stringify(again.body)).toContain('MANDATE_STATE_CONFLICT');
  });

  it('another merchant’s mandate is 404; lists filter by status and page by cursor', async () => {
    const c = client(await stack.createMerchant());
    const other = client(await stack.createMerchant());
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await active(c));
    await c.cancel(ids[0]!);
    expect((await other.get(ids[1]!)).status).toBe(404);
    expect((await other.cancel(ids[1]!)).status).toBe(404);
    const activeOnly = await c.list('?status=active');
    expect(activeOnly.body.pagination.total).toBe(2);
    expect(activeOnly.body.data.map((d: { mandate_id: string }) => d.mandate_id).sort()).toEqual([ids[1], ids[2]].sort());
    const page1 = await c.list('?limit=2');
    expect(page1.body).toMatchObject({ has_more: true, pagination: { total: 3 } });
    const page2 = await c.list(`?limit=2&starting_after=${page1.body.next_cursor}`);
    expect(page2.body.has_more).toBe(false);
    expect([...page1.body.data, ...page2.body.data].map((d: { mandate_id: string }) => d.mandate_id).sort()).toEqual([...ids].sort());
    const events = await c.call('GET', `/api/v1/events?object_id=${ids[0]}`);
    expect(events.status).toBe(200);
    expect(events.body.data.map((e: { type: string }) => e.type).sort()).toEqual(['mandate.approved', 'mandate.cancelled']);
  });
});
