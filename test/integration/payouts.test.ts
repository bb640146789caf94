/** Payouts over HTTP on the local engines: SPEC.md 3.3's rows, balance ledger, list, methods, beneficiaries, races. */
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';
import { events, ledger } from '../support/payments';
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

const pix = (document = '52998224725', key = 'ana@example.com', type = 'email') => ({
  name: 'Ana Silva',
  document,
  document_type: 'CPF',
  instant_transfer_key: key,
  instant_transfer_type: type,
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
    topUp: (amount: number, currency = 'BRL') => call('POST', '/api/v1/sandbox/balance/top-up', { currency, amount }),
    create: (over: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
      call(
        'POST',
        '/api/v1/payout',
        { method_code: 'svc-mt-5', amount: 10, currency: 'BRL', beneficiary: pix(), metadata: { batch: 'b1' }, ...over },
        headers,
      ),
    get: (id: string) => call('GET', `/api/v1/payout/${id}`),
    cancel: (id: string) => call('POST', `/api/v1/payout/${id}/cancel`),
    balance: async (currency = 'BRL') => {
      const r = await call('GET', '/api/v1/balance');
      return Math.round(
        ((r.body.balances as Array<{ currency: string; available: number }>).find((b) => b.currency === currency)?.available ?? 0) * 100,
      );
    },
  };
}

async function funded(amount = 1000) {
  const m = await stack.createMerchant({ notification_url: receiver.url });
  const c = client(m);
  expect((await c.topUp(amount)).status).toBe(200);
  return { m, c };
}

async function waitForStatus(c: ReturnType<typeof client>, id: string, status: string) {
  const end = Date.now() + 15_000;
  for (;;) {
    const r = await c.get(id);
    if (r.body.status === status) return r.body;
    if (Date.now() > end) throw new Error(`payout ${id} is ${r.body.status}, not ${status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

const ledgerSum = async (m: TestMerchant) => (await ledger(m)).reduce((s, e) => s + Number(e.amount_minor), 0);

describe('SPEC.md 3.3', () => {
  it('create: processing, the debit, then completed with completed_at, and the webhooks on the way', async () => {
    const { m, c } = await funded(100);
    const r = await c.create({ amount: 40 });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['created_at', 'message', 'payout_id', 'status', 'success']);
    expect(r.body).toMatchObject({ success: true, status: 'processing', payout_id: expect.stringMatching(/^po_/) });
    expect(await c.balance()).toBe(6000);
    const done = await waitForStatus(c, r.body.payout_id, 'completed');
    expect(done.completed_at).toEqual(expect.any(String));
    const hooks = await receiver.waitFor(2, 15_000, (h) => h.body?.payout_id === r.body.payout_id);
    expect(hooks.map((h) => h.body.event).sort()).toEqual(['payout.completed', 'payout.processing']);
    const completed = hooks.find((h) => h.body.event === 'payout.completed')!;
    expect(completed.body).toMatchObject({
      payout_id: r.body.payout_id,
      status: 'completed',
      amount: 40,
      currency: 'BRL',
      beneficiary_name: 'Ana Silva',
      completed_at: expect.any(String),
      metadata: { batch: 'b1' },
    });
    expect(completed.headers['x-webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(completed.headers['x-signature']).toBeUndefined();
    expect(await ledgerSum(m)).toBe(await c.balance());
  });

  it('00000000272 fails (invalid account) and the amount comes back', async () => {
    const { m, c } = await funded(100);
    const r = await c.create({ amount: 30, beneficiary: pix('00000000272', '00000000272', 'cpf') });
    const failed = await waitForStatus(c, r.body.payout_id, 'failed');
    expect(failed.failure_reason).toBe('invalid_account');
    expect(await c.balance()).toBe(10000);
    expect(await ledgerSum(m)).toBe(10000);
    expect((await events(m)).map((e) => e.type)).toEqual(expect.arrayContaining(['payout.processing', 'payout.failed']));
  });

  it('00000000353 completes and is then refunded, crediting the amount back', async () => {
    const { m, c } = await funded(100);
    const r = await c.create({ amount: 25, beneficiary: pix('00000000353') });
    await waitForStatus(c, r.body.payout_id, 'refunded');
    expect(await c.balance()).toBe(10000);
    expect(await ledgerSum(m)).toBe(10000);
    const types = (await events(m)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['payout.processing', 'payout.completed', 'payout.refunded']));
  });

  it('00000000434 stays pending until cancelled; cancel returns the money; a second cancel is refused', async () => {
    const { m, c } = await funded(100);
    const r = await c.create({ amount: 20, beneficiary: pix('00000000434') });
    expect(r.body.status).toBe('pending');
    await new Promise((res) => setTimeout(res, 500));
    expect((await c.get(r.body.payout_id)).body.status).toBe('pending');
    expect(await c.balance()).toBe(8000);
    const cancel = await c.cancel(r.body.payout_id);
    expect(cancel.status).toBe(200);
    expect(cancel.body).toEqual({ success: true, payout_id: r.body.payout_id, status: 'cancelled', message: expect.any(String) });
    expect(await c.balance()).toBe(10000);
    expect((await c.cancel(r.body.payout_id)).status).toBe(409);
    expect((await events(m)).some((e) => e.type === 'payout.cancelled')).toBe(true);
    expect(await ledgerSum(m)).toBe(10000);
  });

  it('cancel from processing is 409 CANNOT_CANCEL; from completed it is refused too, and nothing changes', async () => {
    process.env.PAYOUT_SETTLEMENT_DELAY_SECONDS = '3';
    try {
      const { c } = await funded(100);
      const r = await c.create({ amount: 10 });
      const res = await c.cancel(r.body.payout_id);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CANNOT_CANCEL');
      expect((await c.get(r.body.payout_id)).body.status).toBe('processing');
      await waitForStatus(c, r.body.payout_id, 'completed');
      expect((await c.cancel(r.body.payout_id)).status).toBe(409);
      expect((await c.get(r.body.payout_id)).body.status).toBe('completed');
    } finally {
      process.env.PAYOUT_SETTLEMENT_DELAY_SECONDS = '0';
    }
  });
});

describe('create: bad input and refusals', () => {
  it.each([
    [{ amount: 0 }, 'VALIDATION_ERROR'],
    [{ amount: 10.123 }, 'VALIDATION_ERROR'],
    [{ currency: 'MXN' }, 'VALIDATION_ERROR'],
    [{ currency: 'EUR' }, 'VALIDATION_ERROR'],
    [{ amount: 0.5 }, 'VALIDATION_ERROR'],
    [{ amount: 60_000 }, 'AMOUNT_LIMIT_EXCEEDED'],
    [{ method_code: 'svc-mt-1' }, 'METHOD_NOT_AVAILABLE'],
    [{ beneficiary: { ...pix(), instant_transfer_key: undefined } }, 'VALIDATION_ERROR'],
    [{ beneficiary: { ...pix(), document: '52998224724' } }, 'INVALID_BENEFICIARY'],
    [{ beneficiary: pix('52998224725', '52998224724', 'cpf') }, 'INVALID_BENEFICIARY'],
    [{ beneficiary: pix('52998224725', 'not-an-email', 'email') }, 'INVALID_BENEFICIARY'],
    [{ beneficiary: pix('52998224725', '11987654321', 'phone') }, 'INVALID_BENEFICIARY'],
    [{ beneficiary: pix('52998224725', 'zzzz', 'random') }, 'INVALID_BENEFICIARY'],
    [
      { beneficiary: pix('52998224725', '00000000000000000000000000000000000000000000000000000000000000000000000000000000', 'email') },
      'VALIDATION_ERROR',
    ],
    [{ notification_url: 'http://169.254.169.254/' }, 'VALIDATION_ERROR'],
  ])('rejects bad payout #%# with its code and writes nothing', async (over, code) => {
    const { m, c } = await funded(100);
    const r = await c.create(over);
    expect(r.status).toBe(400);
    expect(r.body.success).toBe(false);
    expect(r.body.error.code).toBe(code);
    expect(await c.balance()).toBe(10000);
    expect((await c.call('GET', '/api/v1/payout')).body.pagination.total).toBe(0);
    expect(await ledger(m)).toHaveLength(1);
  });

  it('INSUFFICIENT_BALANCE when the balance cannot cover it', async () => {
    const { c } = await funded(5);
    const r = await c.create({ amount: 10 });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect(await c.balance()).toBe(500);
  });

  it('live mode without a payout rail: METHOD_NOT_AVAILABLE, nothing debited or written', async () => {
    const saved = process.env.ALLOWED_KEY_MODES;
    process.env.ALLOWED_KEY_MODES = 'test,live';
    try {
      const m = await stack.createMerchant();
      const live = await stack.admin.createKey(m.merchantId, 'live');
      const r = await stack.request('/api/v1/payout', {
        method: 'POST',
        apiKey: live.secret,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ method_code: 'svc-mt-5', amount: 10, currency: 'BRL', beneficiary: pix() }),
      });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('METHOD_NOT_AVAILABLE');
      expect(await ledger(m)).toHaveLength(0);
    } finally {
      if (saved === undefined) delete process.env.ALLOWED_KEY_MODES;
      else process.env.ALLOWED_KEY_MODES = saved;
    }
  });

  it('METHOD_NOT_AVAILABLE for a method the merchant lacks', async () => {
    const m = await stack.createMerchant({ methods: ['svc-mt-1'] });
    const r = await client(m).create();
    expect(r.body.error.code).toBe('METHOD_NOT_AVAILABLE');
  });

  it('SPEI, CVU/CBU and bank-transfer beneficiaries', async () => {
    const { c } = await funded(10);
    await c.topUp(5000, 'MXN');
    await c.topUp(100000, 'ARS');
    await c.topUp(1000000, 'COP');
    await c.topUp(5000, 'PEN');
    const spei = await c.create({
      method_code: 'svc-mt-30',
      currency: 'MXN',
      amount: 100,
      beneficiary: {
        name: 'Juan Perez',
        document: 'GODE561231HDFRRN00',
        document_type: 'CURP',
        instant_transfer_key: '646180157000000004',
        instant_transfer_type: 'clabe',
      },
    });
    expect(spei.body).toMatchObject({ success: true, status: 'processing' });
    const badClabe = await c.create({
      method_code: 'svc-mt-30',
      currency: 'MXN',
      amount: 100,
      beneficiary: {
        name: 'Juan Perez',
        document: 'GODE561231HDFRRN00',
        document_type: 'CURP',
        instant_transfer_key: '646180157000000005',
        instant_transfer_type: 'clabe',
      },
    });
    expect(badClabe.body.error.code).toBe('INVALID_BENEFICIARY');
    const cbu = await c.create({
      method_code: 'svc-mt-31',
      currency: 'ARS',
      amount: 1000,
      beneficiary: {
        name: 'Lucia Gomez',
        document: '20304050',
        document_type: 'DNI',
        instant_transfer_key: '2850590940090418135201',
        instant_transfer_type: 'cbu',
      },
    });
    expect(cbu.body).toMatchObject({ success: true });
    const bank = await c.create({
      method_code: 'svc-mt-32',
      currency: 'COP',
      amount: 50000,
      beneficiary: {
        name: 'Carlos Ruiz',
        document: '1020304050',
        document_type: 'CC',
        bank_code: '007',
        account_number: '12345678901',
        account_type: 'savings',
      },
    });
    expect(bank.body).toMatchObject({ success: true });
    const noAccountType = await c.create({
      method_code: 'svc-mt-6',
      currency: 'PEN',
      amount: 100,
      beneficiary: { name: 'Rosa Diaz', document: '12345678', document_type: 'DNI', bank_code: '002', account_number: '1912345678901' },
    });
    expect(noAccountType.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET /api/v1/payout/{id}', () => {
  it('masks document and key, and hides other merchants’ payouts', async () => {
    const { c } = await funded(100);
    const r = await c.create({ beneficiary: pix('52998224725', 'ana.silva@example.com', 'email') });
    const got = await c.get(r.body.payout_id);
    expect(got.body).toMatchObject({
      payout_id: r.body.payout_id,
      amount: 10,
      currency: 'BRL',
      method_code: 'svc-mt-5',
      beneficiary: { name: 'Ana Silva' },
    });
    expect(got.text).not.toContain('52998224725');
    expect(got.text).not.toContain('ana.silva@example.com');
    expect(got.body.beneficiary.document).toMatch(/725$/);
    const other = client(await stack.createMerchant());
    expect((await other.get(r.body.payout_id)).body.error.code).toBe('PAYOUT_NOT_FOUND');
    expect((await other.cancel(r.body.payout_id)).status).toBe(404);
  });
});

describe('GET /api/v1/payout', () => {
  it('filters by status and dates and paginates newest first with a total', async () => {
    const { c } = await funded(1000);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await c.create({ amount: 1 + i })).body.payout_id);
    const held = (await c.create({ beneficiary: pix('00000000434') })).body.payout_id;
    const page1 = await c.call('GET', '/api/v1/payout?limit=4');
    expect(page1.body.pagination).toEqual({ total: 6, limit: 4, offset: 0 });
    expect(page1.body.data[0]).toEqual({
      payout_id: held,
      status: 'pending',
      amount: 10,
      currency: 'BRL',
      beneficiary_name: 'Ana Silva',
      created_at: expect.any(String),
    });
    const page2 = await c.call('GET', '/api/v1/payout?limit=4&offset=4');
    expect(page2.body.data).toHaveLength(2);
    const all = [...page1.body.data, ...page2.body.data].map((p: { payout_id: string }) => p.payout_id);
    expect(all).toEqual([held, ...ids.reverse()]);
    const pending = await c.call('GET', '/api/v1/payout?status=pending');
    expect(pending.body.data.map((p: { payout_id: string }) => p.payout_id)).toEqual([held]);
    expect(pending.body.pagination.total).toBe(1);
    const future = await c.call('GET', `/api/v1/payout?from_date=${new Date(Date.now() + 3_600_000).toISOString()}`);
    expect(future.body).toMatchObject({ data: [], pagination: { total: 0 } });
    const today = await c.call(
      'GET',
      `/api/v1/payout?from_date=${new Date(Date.now() - 3_600_000).toISOString()}` +
        `&to_date=${new Date(Date.now() + 60_000).toISOString()}&limit=2`,
    );
    expect(today.body.pagination.total).toBe(6);
    expect(today.body.data).toHaveLength(2);
  });

  it.each([
    ['status=done', 'status'],
    ['from_date=yesterday', 'from_date'],
    ['from_date=2026-02-01&to_date=2026-01-01', 'from_date'],
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['offset=-1', 'offset'],
  ])('rejects %s naming %s', async (qs, field) => {
    const { c } = await funded(1);
    const r = await c.call('GET', `/api/v1/payout?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe('methods and beneficiary validation', () => {
  it('lists available payout methods with field-name required_fields and bounds', async () => {
    const { c } = await funded(1);
    const r = await c.call('GET', '/api/v1/payout/methods/available?country=BRA');
    expect(r.body.success).toBe(true);
    expect(r.body.methods).toEqual([
      expect.objectContaining({
        method_code: 'svc-mt-5',
        country: 'BRA',
        currency: 'BRL',
        min_amount: expect.any(Number),
        max_amount: expect.any(Number),
      }),
    ]);
    expect(r.body.methods[0].required_fields).toEqual(expect.arrayContaining(['instant_transfer_key', 'instant_transfer_type']));
    expect(
      (await c.call('GET', '/api/v1/payout/methods/available?currency=MXN')).body.methods.map(
        (x: { method_code: string }) => x.method_code,
      ),
    ).toEqual(['svc-mt-30']);
    expect((await c.call('GET', '/api/v1/payout/methods/available?country=CHL')).status).toBe(400);
  });

  it('validate-beneficiary answers the exact valid and invalid shapes, both HTTP 200', async () => {
    const { c } = await funded(1);
    const ok = await c.call('POST', '/api/v1/payout/validate-beneficiary', { method_code: 'svc-mt-5', beneficiary: pix() });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ success: true, valid: true, beneficiary: { name: 'Ana Silva', document_valid: true, key_valid: true } });
    const bad = await c.call('POST', '/api/v1/payout/validate-beneficiary', {
      method_code: 'svc-mt-5',
      beneficiary: { ...pix(), document: '11111111111', instant_transfer_key: undefined },
    });
    expect(bad.status).toBe(200);
    expect(bad.body.success).toBe(true);
    expect(bad.body.valid).toBe(false);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(
      expect.arrayContaining(['beneficiary.instant_transfer_key', 'beneficiary.document']),
    );
  });
});

describe('money under concurrency', () => {
  it('30 concurrent payouts against a balance for 10: exactly 10 succeed, 20 INSUFFICIENT_BALANCE, ledger = balance', async () => {
    const { m, c } = await funded(100);
    const results = await Promise.all(Array.from({ length: 30 }, () => c.create({ amount: 10, beneficiary: pix('00000000434') })));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.body?.error?.code === 'INSUFFICIENT_BALANCE');
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(20);
    expect(await c.balance()).toBe(0);
    expect(await ledgerSum(m)).toBe(0);
    expect((await c.call('GET', '/api/v1/payout')).body.pagination.total).toBe(10);
  });

  it('20 concurrent identical requests with one idempotency key: one payout, one debit', async () => {
    const { m, c } = await funded(100);
    const key = `po-key-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => c.create({ amount: 10, beneficiary: pix('00000000434') }, { 'x-idempotency-key': key })),
    );
    expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    expect(new Set(results.filter((r) => r.status === 200).map((r) => r.body.payout_id)).size).toBe(1);
    expect(await c.balance()).toBe(9000);
    expect((await c.call('GET', '/api/v1/payout')).body.pagination.total).toBe(1);
    expect(await ledgerSum(m)).toBe(9000);
  });

  it('cancel racing the start of settlement: exactly one wins', async () => {
    const { runSettlementStep } = await import('../../shared/application/payouts');
    const { payoutDeps } = await import('../../shared/wiring');
    for (let round = 0; round < 5; round++) {
      const { m, c } = await funded(100);
      const id = (await c.create({ amount: 10, beneficiary: pix('00000000434') })).body.payout_id;
      const [cancel, started] = await Promise.all([c.cancel(id), runSettlementStep(payoutDeps(), id, 'start')]);
      const final = (await c.get(id)).body.status;
      if (cancel.status === 200) {
        expect(final).toBe('cancelled');
        expect(started?.status).toBe('cancelled');
        expect(await c.balance()).toBe(10000);
      } else {
        expect(cancel.body.error.code).toBe('CANNOT_CANCEL');
        expect(['processing', 'completed']).toContain(final);
        expect(await c.balance()).toBe(9000);
      }
      expect(await ledgerSum(m)).toBe(await c.balance());
    }
  });
});

describe('GET /api/v1/payout?starting_after', () => {
  it('pages by cursor through the same payouts as offset, one page of reads each', async () => {
    const { c } = await funded(10_000);
    for (let i = 0; i < 7; i++) expect((await c.create({ amount: 1 + i })).status).toBe(200);
    const byOffset = await c.call('GET', '/api/v1/payout?limit=3&offset=0');
    const offsetIds = [...byOffset.body.data];
    for (const offset of [3, 6]) offsetIds.push(...(await c.call('GET', `/api/v1/payout?limit=3&offset=${offset}`)).body.data);
    const cursorIds: any[] = [];
    let last: string | undefined;
    let more = true;
    while (more) {
      const r = await c.call('GET', `/api/v1/payout?limit=3${last ? `&starting_after=${last}` : ''}`);
      expect(r.status).toBe(200);
      cursorIds.push(...r.body.data);
      more = r.body.has_more;
      last = r.body.data.at(-1)?.payout_id;
    }
    expect(cursorIds.map((p) => p.payout_id)).toEqual(offsetIds.map((p) => p.payout_id));
    expect(cursorIds).toHaveLength(7);
  });

  it('answers has_more and next_cursor exactly, and takes a cursor outside a date range without failing', async () => {
    const { c } = await funded(10_000);
    for (let i = 0; i < 6; i++) expect((await c.create({ amount: 1 + i })).status).toBe(200);
    const all = (await c.call('GET', '/api/v1/payout?limit=100')).body;
    expect(all).toMatchObject({ has_more: false, next_cursor: null });
    const ids = all.data.map((p: { payout_id: string }) => p.payout_id);
    const page1 = await c.call('GET', '/api/v1/payout?limit=3');
    expect(page1.body).toMatchObject({ has_more: true, next_cursor: ids[2], pagination: { total: 6, limit: 3, offset: 0 } });
    const page2 = await c.call('GET', `/api/v1/payout?limit=3&starting_after=${page1.body.next_cursor}`);
    expect(page2.body.data.map((p: { payout_id: string }) => p.payout_id)).toEqual(ids.slice(3));
    // The last page ends exactly at the last payout: nothing more, no cursor (no empty page to fetch).
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
    expect((await c.call('GET', '/api/v1/payout?limit=3&offset=3')).body).toMatchObject({ has_more: false, next_cursor: null });

    const pivot = all.data[2].created_at;
    const above = await c.call('GET', `/api/v1/payout?limit=2&to_date=${pivot}&starting_after=${ids[0]}`);
    expect(above.status).toBe(200);
    expect(above.body.data.map((p: { payout_id: string }) => p.payout_id)).toEqual(ids.slice(2, 4));
    const below = await c.call('GET', `/api/v1/payout?limit=2&from_date=${pivot}&starting_after=${ids[5]}`);
    expect(below.status).toBe(200);
    expect(below.body).toMatchObject({ data: [], has_more: false, next_cursor: null });
    const inside = await c.call('GET', `/api/v1/payout?limit=2&to_date=${pivot}&starting_after=${ids[3]}`);
    expect(inside.body.data.map((p: { payout_id: string }) => p.payout_id)).toEqual(ids.slice(4, 6));
  });

  it('refuses starting_after with offset, and an id that is not one of your payouts', async () => {
    const { c } = await funded();
    const own = (await c.create()).body.payout_id;
    const both = await c.call('GET', `/api/v1/payout?offset=1&starting_after=${own}`);
    expect(both.status).toBe(400);
    expect(both.body.error.details[0].field).toBe('starting_after');
    const { c: other } = await funded();
    const foreign = await other.call('GET', `/api/v1/payout?starting_after=${own}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details[0].field).toBe('starting_after');
  });
});
