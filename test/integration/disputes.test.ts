/**
 * Sandbox disputes over HTTP on the local engines (DESIGN.md 9.4): a test payment disputed by simulate (a card
 * chargeback withdraws the amount, a PIX MED moves nothing), read and listed, evidence staged and checked, submitted
 * and decided by the sandbox's issuer (won; lost with `losing_evidence`), accepted; what a merchant sees of each:
 * status codes, bodies, stored state, signed webhooks and the test balance.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { handler as readPixDisputes } from '../../functions/jobs/read-pix-disputes.handler';
import { documentClient } from '../../shared/adapters/aws-clients';
import { systemClock } from '../../shared/adapters/crypto';
import { SANDBOX_DEFENSE_REASONS } from '../../shared/application/disputes';
import { config } from '../../shared/config';
import { disputeDeps } from '../../shared/wiring';
import { balanceMinor, card, payments } from '../support/payments';
import { startReceiver, type Receiver } from '../support/receiver';
import { expectGenuine } from '../support/signatures';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';

jest.setTimeout(60_000);

let stack: TestStack;
let receiver: Receiver;

beforeAll(async () => {
  Object.assign(process.env, {
    PAYOUT_SETTLEMENT_DELAY_SECONDS: '0',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0,1',
    // A live key reaches the dispute routes (the sandbox stage alone would refuse it first): a test dispute is not its.
    ALLOWED_KEY_MODES: 'test,live',
  });
  stack = await startTestStack({ workers: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  delete process.env.ALLOWED_KEY_MODES;
  await receiver.stop();
  await stack.stop();
});

/** `size` bytes that start as the type's magic says (a PDF header, a JPEG SOI), as base64. */
const pdf = (size = 256) => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(size - 9, 0x20)]).toString('base64');
const jpeg = (size = 256) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(size - 4, 0x41)]).toString('base64');
const MB = 1024 * 1024;

type Body = Record<string, unknown>;

function api(m: TestMerchant, apiKey = m.apiKey) {
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    stack.request(path, {
      method,
      apiKey,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const pay = payments(stack, m);
  return {
    call,
    /** A successful card test payment (4242…: approved at once). */
    async paidCard(amount = 80) {
      const r = await pay.direct({ payment_method: 'card', card: card('4242424242424242'), amount });
      expect(r.body).toMatchObject({ status: 'success' });
      return r.body.payment_id as string;
    },
    /** A PIX test payment, paid by the simulator. */
    async paidPix(amount = 25) {
      const r = await pay.direct({ amount });
      expect(r.status).toBe(200);
      expect((await pay.simulate(r.body.payment_id, 'success')).status).toBe(200);
      return r.body.payment_id as string;
    },
    status: (paymentId: string) => pay.status(paymentId),
    simulate: (paymentId: string, body?: Body, headers: Record<string, string> = {}) =>
      call('POST', `/api/v1/sandbox/payments/${paymentId}/dispute`, body, headers),
    get: (id: string) => call('GET', `/api/v1/disputes/${id}`),
    list: (q = '') => call('GET', `/api/v1/disputes${q}`),
    evidence: (id: string, body: Body, headers: Record<string, string> = {}) =>
      call('POST', `/api/v1/disputes/${id}/evidence`, body, headers),
    submit: (id: string, headers: Record<string, string> = {}) => call('POST', `/api/v1/disputes/${id}/submit`, undefined, headers),
    accept: (id: string, headers: Record<string, string> = {}) => call('POST', `/api/v1/disputes/${id}/accept`, undefined, headers),
    /** The merchant's BRL balance transactions of the payment: [type, amount]. */
    ledgerOf: async (paymentId: string) => {
      const r = await call('GET', '/api/v1/balance/transactions?currency=BRL&limit=100');
      expect(r.status).toBe(200);
      return (r.body.data as Array<{ type: string; amount: number; source_id: string }>)
        .filter((t) => t.source_id === paymentId)
        .map((t) => [t.type, t.amount])
        .reverse();
    },
    events: async (objectId: string) => {
      const r = await call('GET', `/api/v1/events?object_id=${objectId}`);
      expect(r.status).toBe(200);
      return (r.body.data as Array<{ type: string }>).map((e) => e.type).sort();
    },
  };
}
type Api = ReturnType<typeof api>;

/** The signed webhook `event` about `id` (a dispute's or a payment's), verified with the merchant's secret. */
async function hook(m: TestMerchant, event: string, id: string): Promise<Body> {
  const [h] = await receiver.waitFor(1, 15_000, (r) => r.body?.event === event && (r.body?.dispute_id === id || r.body?.payment_id === id));
  expectGenuine(h!, m.webhookSecret);
  return h!.body as Body;
}
/** The webhook types received so far about a dispute. */
const hooksOf = (disputeId: string) =>
  receiver.received
    .filter((r) => r.body?.dispute_id === disputeId)
    .map((r) => r.body.event as string)
    .sort();

/** A merchant with its webhooks delivered to the receiver. */
async function merchant() {
  const m = await stack.createMerchant({ notification_url: receiver.url });
  return { m, c: api(m) };
}

/** A card payment disputed: its dispute's body. */
async function chargeback(c: Api, amount = 80, body?: Body) {
  const r = await c.simulate(await c.paidCard(amount), body);
  expect(r.status).toBe(200);
  return r.body as Body & { dispute_id: string; payment_id: string };
}
async function pixMed(c: Api, amount = 25) {
  const r = await c.simulate(await c.paidPix(amount));
  expect(r.status).toBe(200);
  return r.body as Body & { dispute_id: string; payment_id: string };
}

/** The staged documents' chunk items under a dispute (what evidence stores besides the case). */
async function chunkCount(disputeId: string) {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const r = await documentClient().send(
      new QueryCommand({
        TableName: config.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :doc)',
        ExpressionAttributeValues: { ':pk': `DISPUTE#${disputeId}`, ':doc': 'DOC#' },
        Select: 'COUNT',
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    count += r.Count ?? 0;
    start = r.LastEvaluatedKey;
  } while (start);
  return count;
}

async function waitForStatus(c: Api, id: string, status: string) {
  const end = Date.now() + 15_000;
  for (;;) {
    const r = await c.get(id);
    if (r.body.status === status) return r.body as Body;
    if (Date.now() > end) throw new Error(`dispute ${id} is ${r.body.status}, not ${status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

const MATERIAL = {
  defense_reason: 'SupplyDefenseMaterial',
  documents: [{ type: 'DefenseMaterial', mime: 'application/pdf', content_base64: pdf() }],
};

describe('simulate: a test payment disputed by its payer’s bank', () => {
  it('a card payment: a chargeback, the amount withdrawn from the test balance, dispute.created and payment.disputed signed', async () => {
    const { m, c } = await merchant();
    const paymentId = await c.paidCard(80);
    const before = await balanceMinor(m);
    const r = await c.simulate(paymentId);
    expect(r.status).toBe(200);
    const due = Date.parse(r.body.evidence_due_by);
    expect(due - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    expect(r.body).toEqual({
      success: true,
      dispute_id: `dsp_${paymentId.slice(3)}`,
      payment_id: paymentId,
      kind: 'chargeback',
      status: 'needs_response',
      reason: 'consumer_dispute',
      provider_reason_code: '13.1',
      amount: 80,
      currency: 'BRL',
      funds_withdrawn: true,
      evidence_due_by: expect.any(String),
      evidence: null,
      submitted_at: null,
      accepted_at: null,
      last_error: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      closed_at: null,
      livemode: false,
      metadata: expect.any(Object),
    });
    expect(before - (await balanceMinor(m))).toBe(8000);
    const created = await hook(m, 'dispute.created', r.body.dispute_id);
    expect(created).toMatchObject({ dispute_id: r.body.dispute_id, payment_id: paymentId, status: 'needs_response', amount: 80 });
    const disputed = await hook(m, 'payment.disputed', paymentId);
    expect(disputed).toMatchObject({ payment_id: paymentId, dispute: expect.objectContaining({ kind: 'chargeback', status: 'open' }) });
    // Once per payment: a second simulate answers the same dispute and withdraws nothing more.
    const again = await c.simulate(paymentId);
    expect(again.status).toBe(200);
    expect(again.body.dispute_id).toBe(r.body.dispute_id);
    expect(before - (await balanceMinor(m))).toBe(8000);
    expect(await c.events(r.body.dispute_id)).toEqual(['dispute.created']);
  });

  it('a reason code in our words: Visa 10.4 is fraudulent', async () => {
    const { c } = await merchant();
    const d = await chargeback(c, 30, { reason_code: '10.4' });
    expect(d).toMatchObject({ reason: 'fraudulent', provider_reason_code: '10.4', amount: 30 });
  });

  it('evidence_due_by sets the test deadline: 47 hours away, the warning job sends dispute.evidence_due_soon, signed', async () => {
    const { m, c } = await merchant();
    const dueBy = new Date(Date.now() + 47 * 3_600_000).toISOString();
    const d = await chargeback(c, 15, { evidence_due_by: dueBy });
    expect(d.evidence_due_by).toBe(dueBy);
    await readPixDisputes({ time: new Date().toISOString() } as ScheduledEvent, {} as Context);
    expect(await hook(m, 'dispute.evidence_due_soon', d.dispute_id)).toMatchObject({ status: 'needs_response', evidence_due_by: dueBy });
    const bad = await c.simulate(await c.paidCard(10), { evidence_due_by: 'next tuesday' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((x: { field: string }) => x.field)).toEqual(['evidence_due_by']);
  });

  it('a PIX payment: a MED infraction (pix_med), nothing moved, dispute.created', async () => {
    const { m, c } = await merchant();
    const paymentId = await c.paidPix(25);
    const before = await balanceMinor(m);
    const r = await c.simulate(paymentId);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      kind: 'pix_med',
      reason: 'pix_fraud',
      status: 'needs_response',
      amount: 25,
      payment_id: paymentId,
      funds_withdrawn: false,
    });
    expect(await balanceMinor(m)).toBe(before);
    await hook(m, 'dispute.created', r.body.dispute_id);
    expect(await hook(m, 'payment.disputed', paymentId)).toMatchObject({ dispute: expect.objectContaining({ kind: 'fraud_return' }) });
    // A MED defense is text: no reasons to choose from.
    expect((await c.get(r.body.dispute_id)).body.defense_reasons).toEqual([]);
  });

  it('refused: a pending payment, a declined one (409), another merchant’s (404); nothing opened', async () => {
    const { m, c } = await merchant();
    const pay = payments(stack, m);
    const pending = await pay.direct({ amount: 10 });
    const declined = await pay.direct({ payment_method: 'card', card: card('4000000000000002'), amount: 10 });
    for (const id of [pending.body.payment_id, declined.body.payment_id]) {
      const r = await c.simulate(id);
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('PAYMENT_STATE_CONFLICT');
    }
    const other = api(await stack.createMerchant());
    const r = await other.simulate(await c.paidCard(10));
    expect(r.status).toBe(404);
    expect((await c.list()).body.pagination.total).toBe(0);
  });
});

describe('read and list', () => {
  it('GET one: the sandbox’s defense reasons while it needs a response; 404 for another merchant, a live key, an unknown id', async () => {
    const { m, c } = await merchant();
    const d = await chargeback(c);
    const r = await c.get(d.dispute_id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ...d, defense_reasons: SANDBOX_DEFENSE_REASONS });
    const notFound = async (res: Awaited<ReturnType<Api['get']>>) => {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('DISPUTE_NOT_FOUND');
    };
    const other = api(await stack.createMerchant());
    await notFound(await other.get(d.dispute_id));
    await notFound(await other.evidence(d.dispute_id, MATERIAL));
    await notFound(await other.submit(d.dispute_id));
    await notFound(await other.accept(d.dispute_id));
    const live = api(m, (await stack.admin.createKey(m.merchantId, 'live')).secret);
    await notFound(await live.get(d.dispute_id));
    await notFound(await live.accept(d.dispute_id));
    expect((await live.list()).body.pagination.total).toBe(0);
    await notFound(await c.get(`dsp_${'x'.repeat(24)}`));
    const malformed = await c.get('dsp_1');
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body.error.details)).toContain('dispute_id');
    expect((await c.get(d.dispute_id)).body.status).toBe('needs_response');
  });

  it('lists newest first, by status and payment, pages by cursor and by offset', async () => {
    const { c } = await merchant();
    const a = await chargeback(c, 11);
    const b = await chargeback(c, 12);
    const p = await pixMed(c, 13);
    expect((await c.accept(a.dispute_id)).status).toBe(200);
    const all = await c.list();
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ success: true, has_more: false, next_cursor: null, pagination: { total: 3, limit: 20, offset: 0 } });
    expect(all.body.data.map((x: Body) => x.dispute_id)).toEqual([p.dispute_id, b.dispute_id, a.dispute_id]);
    expect(all.body.data[0]).not.toHaveProperty('defense_reasons');
    const open = await c.list('?status=needs_response');
    expect(open.body.data.map((x: Body) => x.dispute_id)).toEqual([p.dispute_id, b.dispute_id]);
    expect(open.body.pagination.total).toBe(2);
    expect((await c.list('?status=accepted')).body.data.map((x: Body) => x.dispute_id)).toEqual([a.dispute_id]);
    const byPayment = await c.list(`?payment_id=${b.payment_id}`);
    expect(byPayment.body).toMatchObject({ pagination: { total: 1 }, data: [expect.objectContaining({ dispute_id: b.dispute_id })] });
    expect((await c.list(`?payment_id=${b.payment_id}&status=accepted`)).body.data).toEqual([]);
    const page1 = await c.list('?limit=2');
    expect(page1.body).toMatchObject({ has_more: true, next_cursor: b.dispute_id, pagination: { total: 3 } });
    const page2 = await c.list(`?limit=2&starting_after=${page1.body.next_cursor}`);
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(page2.body.data.map((x: Body) => x.dispute_id)).toEqual([a.dispute_id]);
    expect((await c.list('?limit=2&offset=2')).body.data.map((x: Body) => x.dispute_id)).toEqual([a.dispute_id]);
    const both = await c.list(`?offset=1&starting_after=${a.dispute_id}`);
    expect(both.status).toBe(400);
    const foreign = await api(await stack.createMerchant()).list(`?starting_after=${a.dispute_id}`);
    expect(foreign.status).toBe(400);
    expect(JSON.stringify(foreign.body.error.details)).toContain('starting_after');
    expect((await c.list('?status=open')).status).toBe(400);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await c.list(`?from_date=${today}`)).body.pagination.total).toBe(3);
    expect((await c.list(`?to_date=${yesterday}`)).body.pagination.total).toBe(0);
    expect((await c.list(`?to_date=${yesterday}&payment_id=${b.payment_id}`)).body.pagination.total).toBe(0);
    expect((await c.list(`?from_date=${today}&to_date=${yesterday}`)).status).toBe(400);
  });
});

describe('evidence', () => {
  it('staged (documents by type and size, never their content), replaced by the next staging, its bytes stored apart', async () => {
    const { c } = await merchant();
    const d = await chargeback(c);
    const first = await c.evidence(d.dispute_id, { ...MATERIAL, text: 'Delivered on time.' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      status: 'needs_response',
      evidence: {
        defense_reason: 'SupplyDefenseMaterial',
        text: 'Delivered on time.',
        documents: [{ type: 'DefenseMaterial', mime: 'application/pdf', size_bytes: 256 }],
        staged_at: expect.any(String),
      },
    });
    expect(first.text).not.toContain(pdf());
    expect((await c.get(d.dispute_id)).body.evidence).toEqual(first.body.evidence);
    // A 1 MB JPEG: a staging bigger than a table item (400 KB), kept in chunks.
    const big = jpeg(MB);
    const second = await c.evidence(d.dispute_id, {
      defense_reason: 'GoodsOrServicesProvided',
      documents: [
        { type: 'ProofOfDelivery', mime: 'image/jpeg', content_base64: big },
        { type: 'Invoice', mime: 'application/pdf', content_base64: pdf(1000) },
      ],
    });
    expect(second.status).toBe(200);
    expect(second.body.evidence).toMatchObject({
      defense_reason: 'GoodsOrServicesProvided',
      text: null,
      documents: [
        { type: 'ProofOfDelivery', mime: 'image/jpeg', size_bytes: MB },
        { type: 'Invoice', mime: 'application/pdf', size_bytes: 1000 },
      ],
    });
    const stored = await disputeDeps().disputes.get(d.dispute_id);
    expect(await disputeDeps().disputes.readDocument(d.dispute_id, stored!.evidence!.staging_id, 0)).toBe(big);
    expect(await disputeDeps().disputes.readDocument(d.dispute_id, stored!.evidence!.staging_id, 1)).toBe(pdf(1000));
    // Only the new staging's chunks are left: the replaced one's were deleted.
    expect(await chunkCount(d.dispute_id)).toBe(Math.ceil(big.length / 300_000) + 1);
  });

  const bad: Array<[string, Body, string]> = [
    ['a content type other than PDF, JPEG or TIFF', { ...MATERIAL, documents: [{ ...MATERIAL.documents[0], mime: 'image/png' }] }, 'mime'],
    [
      'bytes that are not the declared type',
      { ...MATERIAL, documents: [{ type: 'DefenseMaterial', mime: 'application/pdf', content_base64: jpeg() }] },
      'documents.0.content_base64',
    ],
    [
      'a PDF over 2 MB',
      { ...MATERIAL, documents: [{ type: 'DefenseMaterial', mime: 'application/pdf', content_base64: pdf(2 * MB + 1) }] },
      'documents.0.content_base64',
    ],
    [
      'content that is not base64',
      { ...MATERIAL, documents: [{ type: 'DefenseMaterial', mime: 'application/pdf', content_base64: '%PDF-1.4 not base64!' }] },
      'documents.0.content_base64',
    ],
    ['a defense reason the dispute does not list', { ...MATERIAL, defense_reason: 'NotARealReason' }, 'defense_reason'],
    [
      'a document type the reason does not list',
      { ...MATERIAL, documents: [{ ...MATERIAL.documents[0], type: 'ProofOfDelivery' }] },
      'documents.0.type',
    ],
    ['documents without a defense reason', { documents: MATERIAL.documents }, 'defense_reason'],
    ['the same document type twice', { ...MATERIAL, documents: [MATERIAL.documents[0], MATERIAL.documents[0]] }, 'documents.1.type'],
    ['an unknown field', { ...MATERIAL, note: 'x' }, 'note'],
  ];
  describe('bad input: 400 naming the field, nothing stored', () => {
    let c: Api;
    let disputeId: string;
    let staged: Body;
    let chunks: number;
    beforeAll(async () => {
      ({ c } = await merchant());
      disputeId = (await chargeback(c)).dispute_id;
      staged = (await c.evidence(disputeId, { ...MATERIAL, text: 'first' })).body.evidence;
      chunks = await chunkCount(disputeId);
    });
    it.each(bad)('%s', async (_what, body, field) => {
      const r = await c.evidence(disputeId, body);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      expect(r.body.error.details.map((x: { field: string }) => x.field).join(' ')).toContain(field);
      expect((await c.get(disputeId)).body.evidence).toEqual(staged);
      expect(await chunkCount(disputeId)).toBe(chunks);
    });
  });

  it('a PIX MED takes text only: documents or a defense reason are 400, text is staged', async () => {
    const { c } = await merchant();
    const d = await pixMed(c);
    for (const [body, field] of [
      [{ text: 'Not fraud.', documents: MATERIAL.documents }, 'documents'],
      [{ text: 'Not fraud.', defense_reason: 'SupplyDefenseMaterial' }, 'defense_reason'],
    ] as const) {
      const r = await c.evidence(d.dispute_id, body);
      expect(r.status).toBe(400);
      expect(r.body.error.details.map((x: { field: string }) => x.field)).toContain(field);
    }
    expect((await c.get(d.dispute_id)).body.evidence).toBeNull();
    expect(await chunkCount(d.dispute_id)).toBe(0);
    const r = await c.evidence(d.dispute_id, { text: 'The payer received the goods.' });
    expect(r.status).toBe(200);
    expect(r.body.evidence).toMatchObject({ defense_reason: null, text: 'The payer received the goods.', documents: [] });
  });

  it('the local server takes at most 6 MB of request body (Lambda’s limit): a 4.6 MB JPEG (over 6 MB as base64) is 413', async () => {
    const { m, c } = await merchant();
    const d = await chargeback(c);
    const body = JSON.stringify({
      defense_reason: 'GoodsOrServicesProvided',
      documents: [{ type: 'ProofOfDelivery', mime: 'image/jpeg', content_base64: jpeg(Math.ceil(4.6 * MB)) }],
    });
    // Raw fetch: 413 is the HTTP layer's answer, not the route's (the contract does not list it).
    const r = await fetch(`${stack.baseUrl}/api/v1/disputes/${d.dispute_id}/evidence`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey },
      body,
    });
    expect(r.status).toBe(413);
    expect((await c.get(d.dispute_id)).body.evidence).toBeNull();
  });
});

describe('submit and the sandbox’s decision', () => {
  it('won: under_review with dispute.updated, then dispute.won and payment.dispute_won, the amount credited back', async () => {
    const { m, c } = await merchant();
    const paymentId = await c.paidCard(80);
    const paid = await balanceMinor(m);
    const d = (await c.simulate(paymentId)).body as Body & { dispute_id: string };
    expect(await balanceMinor(m)).toBe(paid - 8000);
    expect((await c.evidence(d.dispute_id, MATERIAL)).status).toBe(200);
    const r = await c.submit(d.dispute_id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'under_review', submitted_at: expect.any(String), closed_at: null, last_error: null });
    expect(await hook(m, 'dispute.updated', d.dispute_id)).toMatchObject({ status: 'under_review' });
    const won = await hook(m, 'dispute.won', d.dispute_id);
    expect(won).toMatchObject({ status: 'won', closed_at: expect.any(String), amount: 80, funds_withdrawn: false });
    expect(await hook(m, 'payment.dispute_won', paymentId)).toMatchObject({ dispute: expect.objectContaining({ status: 'won' }) });
    expect(await balanceMinor(m)).toBe(paid);
    expect(await c.ledgerOf(paymentId)).toEqual([
      ['payment', 80],
      ['chargeback', -80],
      ['chargeback_reversal', 80],
    ]);
    const after = (await c.get(d.dispute_id)).body;
    expect(after).toMatchObject({ status: 'won', closed_at: expect.any(String) });
    expect(after).not.toHaveProperty('defense_reasons');
    expect(await c.events(d.dispute_id)).toEqual(['dispute.created', 'dispute.updated', 'dispute.won']);
    expect(hooksOf(d.dispute_id)).toEqual(['dispute.created', 'dispute.updated', 'dispute.won']);
  });

  it('lost with losing_evidence in the text: dispute.lost and payment.dispute_lost, the amount stays withdrawn', async () => {
    const { m, c } = await merchant();
    const paymentId = await c.paidCard(40);
    const paid = await balanceMinor(m);
    const d = (await c.simulate(paymentId)).body as Body & { dispute_id: string };
    const staged = await c.evidence(d.dispute_id, {
      defense_reason: 'GoodsOrServicesProvided',
      documents: [{ type: 'ProofOfService', mime: 'image/jpeg', content_base64: jpeg() }],
      text: 'losing_evidence',
    });
    expect(staged.status).toBe(200);
    expect((await c.submit(d.dispute_id)).status).toBe(200);
    expect(await hook(m, 'dispute.lost', d.dispute_id)).toMatchObject({
      status: 'lost',
      closed_at: expect.any(String),
      funds_withdrawn: true,
    });
    await hook(m, 'payment.dispute_lost', paymentId);
    expect(await balanceMinor(m)).toBe(paid - 4000);
    expect(await c.events(d.dispute_id)).toEqual(['dispute.created', 'dispute.lost', 'dispute.updated']);
  });

  it('a PIX MED: its text submitted, won with nothing moved; lost, the returned amount debited', async () => {
    const { m, c } = await merchant();
    const before = await balanceMinor(m);
    const a = await pixMed(c, 25);
    const b = await pixMed(c, 15);
    const credited = await balanceMinor(m);
    expect(credited - before).toBe(4000);
    const noText = await c.submit(a.dispute_id);
    expect(noText.status).toBe(400);
    expect(JSON.stringify(noText.body.error.details)).toContain('evidence');
    await c.evidence(a.dispute_id, { text: 'The payer received the goods.' });
    await c.evidence(b.dispute_id, { text: 'losing_evidence' });
    expect((await c.submit(a.dispute_id)).body.status).toBe('under_review');
    expect((await c.submit(b.dispute_id)).body.status).toBe('under_review');
    await hook(m, 'dispute.won', a.dispute_id);
    await hook(m, 'dispute.lost', b.dispute_id);
    await hook(m, 'payment.dispute_won', a.payment_id);
    await hook(m, 'payment.dispute_lost', b.payment_id);
    expect(await balanceMinor(m)).toBe(credited - 1500);
    expect(await c.ledgerOf(a.payment_id)).toEqual([['payment', 25]]);
    expect(await c.ledgerOf(b.payment_id)).toEqual([
      ['payment', 15],
      ['pix_fraud_return', -15],
    ]);
  });

  it('refused before anything is sent: nothing staged, a required document missing (400 naming it); the case unchanged', async () => {
    const { m, c } = await merchant();
    const d = await chargeback(c);
    const none = await c.submit(d.dispute_id);
    expect(none.status).toBe(400);
    expect(none.body.error.details).toEqual([expect.objectContaining({ field: 'evidence' })]);
    await c.evidence(d.dispute_id, {
      defense_reason: 'SupplyDefenseMaterial',
      documents: [{ type: 'TermsAndConditions', mime: 'application/pdf', content_base64: pdf() }],
    });
    const missing = await c.submit(d.dispute_id);
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([expect.objectContaining({ field: 'documents.DefenseMaterial' })]);
    await c.evidence(d.dispute_id, { defense_reason: 'GoodsOrServicesProvided', documents: [] });
    const alternative = await c.submit(d.dispute_id);
    expect(alternative.status).toBe(400);
    expect(JSON.stringify(alternative.body.error.details)).toContain('ProofOfDelivery|ProofOfService');
    const now = (await c.get(d.dispute_id)).body;
    expect(now).toMatchObject({ status: 'needs_response', submitted_at: null, last_error: null });
    expect((await disputeDeps().disputes.get(d.dispute_id))!.last_action).toBeNull();
    expect(await c.events(d.dispute_id)).toEqual(['dispute.created']);
    await hook(m, 'dispute.created', d.dispute_id);
    expect(hooksOf(d.dispute_id)).toEqual(['dispute.created']);
  });

  it('after the deadline (the clock past evidence_due_by) submit and evidence are 409 DISPUTE_DEADLINE_PASSED, nothing sent', async () => {
    const { c } = await merchant();
    const d = await chargeback(c);
    await c.evidence(d.dispute_id, MATERIAL);
    const later = new Date(Date.parse(d.evidence_due_by as string) + 1000);
    const spy = jest.spyOn(systemClock, 'now').mockImplementation(() => new Date(later));
    let r: Awaited<ReturnType<Api['submit']>>;
    try {
      r = await c.submit(d.dispute_id);
    } finally {
      spy.mockRestore();
    }
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('DISPUTE_DEADLINE_PASSED');
    expect(r.body.error.message).toContain(d.evidence_due_by);
    expect((await c.get(d.dispute_id)).body).toMatchObject({ status: 'needs_response', submitted_at: null });
    expect(await c.events(d.dispute_id)).toEqual(['dispute.created']);
    // Before the deadline the same submission goes through.
    expect((await c.submit(d.dispute_id)).body.status).toBe('under_review');
    // A test dispute simulated with its deadline past: evidence and submit, the same 409; nothing staged.
    const late = await chargeback(c, 10, { evidence_due_by: new Date(Date.now() - 60_000).toISOString() });
    const staged = await c.evidence(late.dispute_id, MATERIAL);
    expect([staged.status, staged.body.error.code]).toEqual([409, 'DISPUTE_DEADLINE_PASSED']);
    expect((await c.get(late.dispute_id)).body.evidence).toBeNull();
    expect((await c.submit(late.dispute_id)).body.error.code).toBe('DISPUTE_DEADLINE_PASSED');
  });
});

describe('accept and closed disputes', () => {
  it('accept: accepted and closed, dispute.updated, the amount stays withdrawn; no decision follows', async () => {
    const { m, c } = await merchant();
    const paymentId = await c.paidCard(50);
    const paid = await balanceMinor(m);
    const d = (await c.simulate(paymentId)).body as Body & { dispute_id: string };
    const r = await c.accept(d.dispute_id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'accepted',
      accepted_at: expect.any(String),
      closed_at: expect.any(String),
      funds_withdrawn: true,
    });
    expect(await hook(m, 'dispute.updated', d.dispute_id)).toMatchObject({ status: 'accepted' });
    expect(await balanceMinor(m)).toBe(paid - 5000);
    expect((await c.get(d.dispute_id)).body).not.toHaveProperty('defense_reasons');
    expect(await c.events(d.dispute_id)).toEqual(['dispute.created', 'dispute.updated']);
  });

  it('an accepted PIX MED: returned by the sandbox’s PSP, payment.dispute_lost, its amount debited; still accepted', async () => {
    const { m, c } = await merchant();
    const d = await pixMed(c, 30);
    const before = await balanceMinor(m);
    const r = await c.accept(d.dispute_id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'accepted', kind: 'pix_med' });
    expect(await hook(m, 'payment.dispute_lost', d.payment_id)).toMatchObject({
      dispute: expect.objectContaining({ kind: 'fraud_return', status: 'lost' }),
    });
    expect(await balanceMinor(m)).toBe(before - 3000);
    expect(r.body.funds_withdrawn).toBe(false);
    // The return is told as the case's update: funds_withdrawn, its status still accepted.
    await receiver.waitFor(1, 15_000, (h) => h.body?.dispute_id === d.dispute_id && h.body?.funds_withdrawn === true);
    expect((await c.get(d.dispute_id)).body).toMatchObject({ status: 'accepted', closed_at: r.body.closed_at, funds_withdrawn: true });
    expect(await c.events(d.dispute_id)).toEqual(['dispute.created', 'dispute.updated', 'dispute.updated']);
  });

  it('evidence, submit and accept on a closed dispute (accepted, won, lost) are 400 DISPUTE_NOT_OPEN', async () => {
    const { m, c } = await merchant();
    const accepted = await chargeback(c, 10);
    await c.accept(accepted.dispute_id);
    const won = await chargeback(c, 11);
    await c.evidence(won.dispute_id, MATERIAL);
    await c.submit(won.dispute_id);
    const lost = await chargeback(c, 12);
    await c.evidence(lost.dispute_id, { ...MATERIAL, text: 'losing_evidence' });
    await c.submit(lost.dispute_id);
    await hook(m, 'dispute.won', won.dispute_id);
    await hook(m, 'dispute.lost', lost.dispute_id);
    const notOpen = (r: Awaited<ReturnType<Api['get']>>, status: string) => {
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('DISPUTE_NOT_OPEN');
      expect(r.body.error.message).toContain(status);
    };
    for (const [d, status] of [
      [accepted, 'accepted'],
      [won, 'won'],
      [lost, 'lost'],
    ] as const) {
      const before = (await c.get(d.dispute_id)).body;
      notOpen(await c.evidence(d.dispute_id, MATERIAL), status);
      notOpen(await c.submit(d.dispute_id), status);
      if (status !== 'accepted') notOpen(await c.accept(d.dispute_id), status);
      expect((await c.get(d.dispute_id)).body).toEqual(before);
    }
    // Accepting an accepted dispute again answers it as it is (a repeat), changing nothing.
    const again = await c.accept(accepted.dispute_id);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'accepted', updated_at: (await c.get(accepted.dispute_id)).body.updated_at });
  });

  it('an under_review dispute takes no more evidence and cannot be accepted', async () => {
    const { c } = await merchant();
    // A decision delayed past the test: the settlement queue's delay.
    process.env.PAYOUT_SETTLEMENT_DELAY_SECONDS = '30';
    let d: Body & { dispute_id: string };
    try {
      d = await chargeback(c);
      await c.evidence(d.dispute_id, MATERIAL);
      expect((await c.submit(d.dispute_id)).body.status).toBe('under_review');
    } finally {
      process.env.PAYOUT_SETTLEMENT_DELAY_SECONDS = '0';
    }
    expect((await c.evidence(d.dispute_id, MATERIAL)).body.error.code).toBe('DISPUTE_NOT_OPEN');
    expect((await c.accept(d.dispute_id)).body.error.code).toBe('DISPUTE_NOT_OPEN');
    // A repeated submission answers the one that went through.
    const again = await c.submit(d.dispute_id);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('under_review');
  });
});

describe('concurrency', () => {
  it('two submits and an accept at once: one action goes through, told once; the others 200, 400 or 503 with Retry-After', async () => {
    const { c } = await merchant();
    for (let round = 0; round < 3; round++) {
      const d = await chargeback(c, 10 + round);
      await c.evidence(d.dispute_id, MATERIAL);
      const answers = await Promise.all([c.submit(d.dispute_id), c.accept(d.dispute_id), c.submit(d.dispute_id)]);
      for (const r of answers) {
        expect([200, 400, 503]).toContain(r.status);
        if (r.status === 503) {
          expect(r.body.error.code).toBe('BUSY_RETRY_SAME_KEY');
          expect(r.headers.get('retry-after')).toBe('1');
        }
        if (r.status === 400) expect(r.body.error.code).toBe('DISPUTE_NOT_OPEN');
      }
      const final = await waitForStatus(c, d.dispute_id, answers.some((r) => r.body.status === 'accepted') ? 'accepted' : 'won');
      const updates = (await c.events(d.dispute_id)).filter((t) => t === 'dispute.updated');
      expect([final.status, updates]).toEqual([final.status, ['dispute.updated']]);
    }
  });
});

describe('idempotency', () => {
  it('the same X-Idempotency-Key replays the same answer on simulate, evidence, submit and accept', async () => {
    const { c } = await merchant();
    const key = (n: string) => ({ 'x-idempotency-key': `dsp-${n}-${Date.now()}-${Math.random()}` });
    const paymentId = await c.paidCard(20);
    const k1 = key('sim');
    const s1 = await c.simulate(paymentId, {}, k1);
    const s2 = await c.simulate(paymentId, {}, k1);
    expect(s2.status).toBe(200);
    expect(s2.headers.get('idempotent-replayed')).toBe('true');
    expect(s2.body).toEqual(s1.body);
    const id = s1.body.dispute_id as string;
    const k2 = key('ev');
    const e1 = await c.evidence(id, MATERIAL, k2);
    const e2 = await c.evidence(id, MATERIAL, k2);
    expect(e2.headers.get('idempotent-replayed')).toBe('true');
    expect(e2.body).toEqual(e1.body);
    const stored = await disputeDeps().disputes.get(id);
    expect(stored!.revision).toBe(2); // created, staged once
    const reused = await c.evidence(id, { ...MATERIAL, text: 'other' }, k2);
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const k3 = key('submit');
    const u1 = await c.submit(id, k3);
    const u2 = await c.submit(id, k3);
    expect(u2.headers.get('idempotent-replayed')).toBe('true');
    expect(u2.body).toEqual(u1.body);
    await waitForStatus(c, id, 'won');
    expect(await c.events(id)).toEqual(['dispute.created', 'dispute.updated', 'dispute.won']);

    const other = await chargeback(c, 21);
    const k4 = key('accept');
    const a1 = await c.accept(other.dispute_id, k4);
    const a2 = await c.accept(other.dispute_id, k4);
    expect(a2.headers.get('idempotent-replayed')).toBe('true');
    expect(a2.body).toEqual(a1.body);
    expect(await c.events(other.dispute_id)).toEqual(['dispute.created', 'dispute.updated']);
  });
});
