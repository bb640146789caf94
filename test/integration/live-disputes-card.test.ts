/**
 * Live card disputes end to end (DESIGN.md 9.4), over real HTTP on the local engines against the fake Adyen (its
 * standard notifications, signed as Adyen signs them, and its Disputes API v30): NOTIFICATION_OF_CHARGEBACK opens one
 * dispute (needs_response, its defense deadline, no money), CHARGEBACK debits once on the same dispute, repeated and
 * out-of-order notices never make a second dispute nor move money twice; the defense reasons Adyen lists, evidence
 * checked against them, submit (documents supplied once, the defense sent once, under_review; its repeats send
 * nothing), Adyen's refusal (422, last_error, needs_response; a later submission replaces what was supplied), Adyen not
 * answering (502; the retry resumes where it stopped), accept, the outcome notices (won with its credit, lost) and the
 * defense period's end (409 without a call). A chargeback held by dLocal: readable, not defendable. After every case
 * the live ledger equals the balance and the fakes saw no request off their schemas.
 */
import { randomBytes } from 'node:crypto';
import { paymentReferenceOf } from '../../shared/adapters/providers/adyen/adyen.transformers';
import { cardOrderIdOf } from '../../shared/adapters/providers/dlocal/dlocal.card-transformers';
import type { AdyenDisputeOp } from '../../shared/adapters/providers/adyen/adyen.client';
import { breakers } from '../../shared/application/routing';
import { startFakeAdyen, type FakeAdyen, type FakeDefenseReason, type FakeDispute } from '../support/fake-adyen';
import { FAKE_CARDS, startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';
import { verifyWebhook } from '../support/merchant-verify';
import { disputeCalls } from '../support/dispute-calls';
import { customer } from '../support/payments';
import { balanceMinorOf, expectLedgerEqualsBalance, startLiveStage, type LiveMerchant, type LiveStage } from '../support/live-stage';
import type { Receiver } from '../support/receiver';
import type { TestStack } from '../support/test-stack';

let adyen: FakeAdyen;
let dlocal: FakeDlocal;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;
let live: LiveStage;

/** Short enough that a hung Disputes API call ends the request well within the test's time; the fake hangs longer. */
const timeouts = { connect_ms: 1_000, total_ms: 2_500 };

beforeAll(async () => {
  [adyen, dlocal] = await Promise.all([startFakeAdyen({ hangMs: 6_000 }), startFakeDlocal()]);
  live = await startLiveStage(
    { adyen: adyen.adyenConfig({ timeouts }), dlocal: dlocal.dlocalConfig() },
    { merchantName: 'Loja Disputas Cartão', receiver: true },
  );
  ({ stack, receiver, merchant } = live);
  adyen.setNotificationUrl(`${stack.baseUrl}/providers/adyen/notifications`);
  dlocal.chargebacks.setUrl(`${stack.baseUrl}/providers/dlocal/chargebacks`);
});

beforeEach(() => breakers.reset());

afterEach(async () => {
  expect(adyen.violations).toEqual([]);
  expect(dlocal.violations).toEqual([]);
  await expectLedgerEqualsBalance(stack, merchant, 'BRL');
});

afterAll(async () => {
  await live?.stop();
  await Promise.all([adyen?.close(), dlocal?.close()]);
});

const year = String(new Date().getUTCFullYear() + 3);
const card = (number = '4111111145551142') => ({ number, holder_name: 'ANA SILVA', cvv: '737', expiry_month: '03', expiry_year: year });

async function paidCard(amount = 100, m: LiveMerchant = merchant, number?: string): Promise<string> {
  const r = await stack.request('/cashier/cashier/payment', {
    method: 'POST',
    apiKey: m.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ payment_method: 'card', amount, currency: 'BRL', country: 'BRA', customer, card: card(number) }),
  });
  expect(r.body).toMatchObject({ status: 'success' });
  return r.body.payment_id as string;
}

const disputeIdOf = (paymentId: string) => `dsp_${paymentId.slice(3)}`;
/** A whole second, so the deadline reads back as it was sent. */
const inDays = (days: number) => new Date(Math.floor((Date.now() + days * 86_400_000) / 1000) * 1000).toISOString();

/** A paid card disputed at Adyen (the case, not yet told to us). */
async function disputedAtAdyen(o: { amount?: number; reasonCode?: string; defenseReasons?: FakeDefenseReason[] } = {}) {
  const paymentId = await paidCard(o.amount ?? 100);
  const held = adyen.payment(paymentReferenceOf(paymentId))!;
  const d = adyen.openDispute({
    paymentPspReference: held.pspReference,
    reasonCode: o.reasonCode ?? '10.4',
    defensePeriodEndsAt: inDays(20),
    ...(o.defenseReasons ? { defenseReasons: o.defenseReasons } : {}),
  });
  return { paymentId, disputeId: disputeIdOf(paymentId), d };
}

/** One of Adyen's notices for the dispute, posted as Adyen posts them: answered `[accepted]`. */
async function notice(d: FakeDispute, eventCode: string, over: Parameters<FakeAdyen['disputeItem']>[2] = {}) {
  expect(await adyen.notify([adyen.disputeItem(d.pspReference, eventCode, over)])).toEqual({ status: 200, body: '[accepted]' });
}

/** A paid card with its chargeback told (NOTIFICATION_OF_CHARGEBACK, then CHARGEBACK): the dispute open, the amount withdrawn. */
async function chargedBack(o: Parameters<typeof disputedAtAdyen>[0] = {}) {
  const c = await disputedAtAdyen(o);
  await notice(c.d, 'NOTIFICATION_OF_CHARGEBACK');
  await notice(c.d, 'CHARGEBACK');
  return c;
}

const { api, getDispute, stage, submit, accept } = disputeCalls(
  () => stack,
  () => merchant.apiKey,
);

/** The Disputes API calls the fake received for one dispute (refused and failed ones included). */
const calls = (d: FakeDispute, op: AdyenDisputeOp) =>
  adyen.requests.filter((r) => r.path === `/${op}` && (r.body as { disputePspReference?: string })?.disputePspReference === d.pspReference);
/** Every call that changes something at Adyen, in order (reading the defense reasons is not one). */
const CHANGES: readonly AdyenDisputeOp[] = ['supplyDefenseDocument', 'deleteDisputeDefenseDocument', 'defendDispute', 'acceptDispute'];
const changes = (d: FakeDispute) =>
  adyen.requests
    .filter((r) => CHANGES.includes(r.path.slice(1) as AdyenDisputeOp))
    .filter((r) => (r.body as { disputePspReference?: string })?.disputePspReference === d.pspReference)
    .map((r) => r.path.slice(1));

const balance = () => balanceMinorOf(stack, merchant.apiKey, 'BRL');
async function entries(paymentId: string, type: 'chargeback' | 'chargeback_reversal') {
  const r = await stack.request(`/api/v1/balance/transactions?type=${type}&currency=BRL`, { apiKey: merchant.apiKey });
  expect(r.status).toBe(200);
  return (r.body.data as Array<{ type: string; amount: number; source_id: string }>).filter((t) => t.source_id === paymentId);
}

const disputeHooks = (disputeId: string) =>
  receiver.received.filter((r) => r.body?.dispute_id === disputeId && String(r.body?.event).startsWith('dispute.'));
/** The dispute's webhooks by type, sorted (webhooks carry no order guarantee). */
const hookTypes = (disputeId: string) =>
  disputeHooks(disputeId)
    .map((h) => String(h.body.event))
    .sort();
async function hook(disputeId: string, event: string, ok: (b: Record<string, unknown>) => boolean = () => true) {
  const [h] = await receiver.waitFor(1, 15_000, (r) => r.body?.event === event && r.body?.dispute_id === disputeId && ok(r.body));
  expect(verifyWebhook(h!.rawBody, h!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
  return h!.body as Record<string, unknown>;
}
const settle = () => new Promise((r) => setTimeout(r, 400));

const LEVELS = { Required: 'required', OneOrMore: 'one_or_more', Optional: 'optional', AlternativeRequired: 'alternative_required' };
/** The defense reasons as the fake lists them for a dispute, in our words. */
const ourReasons = (d: FakeDispute) =>
  d.defenseReasons.map((r) => ({ code: r.code, documents: r.documents.map((x) => ({ type: x.type, requirement: LEVELS[x.level] })) }));

/** Small documents whose first bytes are their type's. */
const pdf = (text = 'proof of delivery') => Buffer.from(`%PDF-1.4\n${text}\n%%EOF`).toString('base64');
const jpeg = () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(48)]).toString('base64');
const material = (content = pdf()) => ({ type: 'DefenseMaterial', mime: 'application/pdf', content_base64: content });

describe('a live card chargeback at Adyen: one dispute, its money once', () => {
  it('NOTIFICATION_OF_CHARGEBACK opens it (needs_response, its deadline, no money); CHARGEBACK debits once, same dispute', async () => {
    const { paymentId, disputeId, d } = await disputedAtAdyen({ amount: 100 });
    const before = await balance();

    await notice(d, 'NOTIFICATION_OF_CHARGEBACK');
    const opened = await getDispute(disputeId);
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({
      dispute_id: disputeId,
      payment_id: paymentId,
      kind: 'chargeback',
      status: 'needs_response',
      reason: 'fraudulent',
      provider_reason_code: '10.4',
      amount: 100,
      currency: 'BRL',
      evidence_due_by: d.defensePeriodEndsAt,
      evidence: null,
      submitted_at: null,
      last_error: null,
      livemode: true,
    });
    expect(opened.body.defense_reasons).toEqual(ourReasons(d));
    expect(await hook(disputeId, 'dispute.created')).toMatchObject({
      dispute_id: disputeId,
      payment_id: paymentId,
      status: 'needs_response',
      evidence_due_by: d.defensePeriodEndsAt,
    });
    expect(await balance()).toBe(before);
    expect(await entries(paymentId, 'chargeback')).toEqual([]);

    // The same notice again (Adyen's retry): nothing.
    await notice(d, 'NOTIFICATION_OF_CHARGEBACK');
    await notice(d, 'CHARGEBACK');
    expect(await balance()).toBe(before - 10_000);
    expect(await entries(paymentId, 'chargeback')).toEqual([expect.objectContaining({ amount: -100 })]);
    expect(await hook(disputeId, 'dispute.updated')).toMatchObject({ status: 'needs_response' });

    // Replays and a late notice of the chargeback's announcement: no second dispute, no second debit.
    await notice(d, 'CHARGEBACK');
    await notice(d, 'NOTIFICATION_OF_CHARGEBACK');
    await Promise.all([notice(d, 'CHARGEBACK'), notice(d, 'CHARGEBACK')]);
    expect(await balance()).toBe(before - 10_000);
    expect(await entries(paymentId, 'chargeback')).toHaveLength(1);
    const listed = await api('GET', `/api/v1/disputes?payment_id=${paymentId}`);
    expect(listed.body).toMatchObject({ pagination: { total: 1 }, data: [{ dispute_id: disputeId, status: 'needs_response' }] });
    const all = await api('GET', '/api/v1/disputes?limit=100');
    expect((all.body.data as Array<{ payment_id: string }>).filter((x) => x.payment_id === paymentId)).toHaveLength(1);
    await settle();
    expect(hookTypes(disputeId)).toEqual(['dispute.created', 'dispute.updated'].sort());
    const events = await api('GET', `/api/v1/events?object_id=${disputeId}`);
    expect(events.status).toBe(200);
    expect((events.body.data as Array<{ type: string }>).map((e) => e.type).sort()).toEqual(['dispute.created', 'dispute.updated']);
    expect(changes(d)).toEqual([]);
  });

  it('a CHARGEBACK before its announcement opens the same one dispute; the late announcement adds nothing', async () => {
    const { paymentId, disputeId, d } = await disputedAtAdyen({ amount: 30, reasonCode: '13.1' });
    const before = await balance();
    await notice(d, 'CHARGEBACK');
    expect(await balance()).toBe(before - 3000);
    expect((await getDispute(disputeId)).body).toMatchObject({
      status: 'needs_response',
      reason: 'consumer_dispute',
      evidence_due_by: d.defensePeriodEndsAt,
    });
    await notice(d, 'NOTIFICATION_OF_CHARGEBACK');
    expect(await balance()).toBe(before - 3000);
    expect(await entries(paymentId, 'chargeback')).toHaveLength(1);
    await settle();
    expect(hookTypes(disputeId)).toEqual(['dispute.created'].sort());
  });
});

describe('defending it through the Disputes API', () => {
  it('evidence checked against the reasons Adyen lists; submit supplies our documents, defends once; repeats send nothing', async () => {
    const { disputeId, d } = await chargedBack();
    const reasons = (await getDispute(disputeId)).body.defense_reasons as Array<{ code: string }>;
    expect(reasons).toEqual(ourReasons(d));

    // Each refused with the field named, nothing staged, nothing sent.
    const refused: Array<[unknown, string]> = [
      [{ defense_reason: 'NotListed', documents: [material()] }, 'defense_reason'],
      [{ defense_reason: 'SupplyDefenseMaterial', documents: [{ ...material(), type: 'GoodsNotReturned' }] }, 'documents.0.type'],
      [{ defense_reason: 'SupplyDefenseMaterial', documents: [material(jpeg())] }, 'documents.0.content_base64'],
      [{ defense_reason: 'SupplyDefenseMaterial', documents: [material(), material()] }, 'documents.1.type'],
      [{ documents: [material()] }, 'defense_reason'],
    ];
    for (const [body, field] of refused) {
      const r = await stage(disputeId, body);
      expect([r.status, r.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect((r.body.error.details as Array<{ field: string }>).map((x) => x.field)).toContain(field);
    }
    expect((await getDispute(disputeId)).body.evidence).toBeNull();

    // Staged without the reason's required document: taken, but submit names what is missing before any call.
    const invoice = { type: 'TIDorInvoice', mime: 'image/jpeg', content_base64: jpeg() };
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [invoice] })).status).toBe(200);
    const missing = await submit(disputeId);
    expect([missing.status, missing.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(missing.body.error.details).toEqual([expect.objectContaining({ field: 'documents.DefenseMaterial' })]);
    expect(changes(d)).toEqual([]);

    const proof = pdf('order 4411 delivered to the cardholder');
    const staged = await stage(disputeId, {
      defense_reason: 'SupplyDefenseMaterial',
      documents: [material(proof), invoice],
      text: 'Delivered, signed for by the cardholder.',
    });
    expect(staged.status).toBe(200);
    expect(staged.body.evidence).toMatchObject({
      defense_reason: 'SupplyDefenseMaterial',
      text: 'Delivered, signed for by the cardholder.',
      documents: [
        { type: 'DefenseMaterial', mime: 'application/pdf', size_bytes: Buffer.from(proof, 'base64').length },
        { type: 'TIDorInvoice', mime: 'image/jpeg', size_bytes: Buffer.from(invoice.content_base64, 'base64').length },
      ],
    });
    expect(JSON.stringify(staged.body)).not.toContain(proof);

    const key = `submit-${disputeId}`;
    const submitted = await submit(disputeId, key);
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({
      dispute_id: disputeId,
      status: 'under_review',
      submitted_at: expect.any(String),
      last_error: null,
    });
    expect(changes(d)).toEqual(['supplyDefenseDocument', 'defendDispute']);
    expect(calls(d, 'supplyDefenseDocument')[0]!.body).toEqual({
      defenseDocuments: [
        { content: proof, contentType: 'application/pdf', defenseDocumentTypeCode: 'DefenseMaterial' },
        { content: invoice.content_base64, contentType: 'image/jpeg', defenseDocumentTypeCode: 'TIDorInvoice' },
      ],
      disputePspReference: d.pspReference,
      merchantAccountCode: adyen.merchantAccount,
    });
    expect(calls(d, 'defendDispute')[0]!.body).toEqual({
      defenseReasonCode: 'SupplyDefenseMaterial',
      disputePspReference: d.pspReference,
      merchantAccountCode: adyen.merchantAccount,
    });
    expect(adyen.dispute(d.pspReference)).toMatchObject({ defendedWith: 'SupplyDefenseMaterial', supplies: 1 });
    expect(await hook(disputeId, 'dispute.updated', (b) => b.status === 'under_review')).toMatchObject({
      submitted_at: submitted.body.submitted_at,
    });

    // The same key (replayed), no key, another key: the same dispute, nothing more sent.
    const replayed = await submit(disputeId, key);
    expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(replayed.body).toEqual(submitted.body);
    expect((await submit(disputeId)).body).toMatchObject({ status: 'under_review', submitted_at: submitted.body.submitted_at });
    expect((await submit(disputeId, `${key}-again`)).status).toBe(200);
    expect(changes(d)).toEqual(['supplyDefenseDocument', 'defendDispute']);
    // Under review: no more evidence, no accept.
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material()] })).body.error?.code).toBe(
      'DISPUTE_NOT_OPEN',
    );
    expect((await accept(disputeId)).body.error?.code).toBe('DISPUTE_NOT_OPEN');
    // While under review the provider's list is not read (nothing can be chosen).
    expect((await getDispute(disputeId)).body.defense_reasons).toBeUndefined();
    expect(changes(d)).toEqual(['supplyDefenseDocument', 'defendDispute']);
  });

  it('Adyen not listing the defense reasons (503): GET reads the dispute without them; evidence 502, not staged; then both', async () => {
    const { disputeId, d } = await chargedBack();
    adyen.failNext('retrieveApplicableDefenseReasons', { status: 503 }, 2);
    const down = await getDispute(disputeId);
    expect([down.status, down.body.status, down.body.defense_reasons]).toEqual([200, 'needs_response', undefined]);
    const notStaged = await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material()] });
    expect([notStaged.status, notStaged.body.error?.code]).toEqual([502, 'PROVIDER_UNAVAILABLE']);
    expect((await getDispute(disputeId)).body).toMatchObject({ evidence: null, defense_reasons: ourReasons(d) });
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material()] })).status).toBe(200);
    expect(changes(d)).toEqual([]);
  });

  it('the outcome: CHARGEBACK_REVERSED wins it with one credit; SECOND_CHARGEBACK then loses it with one more debit', async () => {
    const { paymentId, disputeId, d } = await chargedBack({ amount: 60 });
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material()] })).status).toBe(200);
    expect((await submit(disputeId)).body.status).toBe('under_review');
    const before = await balance();

    await notice(d, 'CHARGEBACK_REVERSED');
    await notice(d, 'CHARGEBACK_REVERSED');
    expect(await balance()).toBe(before + 6000);
    expect(await entries(paymentId, 'chargeback_reversal')).toEqual([expect.objectContaining({ amount: 60 })]);
    expect(await hook(disputeId, 'dispute.won')).toMatchObject({ status: 'won', closed_at: expect.any(String) });
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'won', closed_at: expect.any(String) });
    // Closed: nothing more is taken.
    expect((await submit(disputeId)).body.error?.code).toBe('DISPUTE_NOT_OPEN');
    expect((await accept(disputeId)).body.error?.code).toBe('DISPUTE_NOT_OPEN');

    await notice(d, 'SECOND_CHARGEBACK');
    await notice(d, 'SECOND_CHARGEBACK');
    expect(await balance()).toBe(before);
    expect(await entries(paymentId, 'chargeback')).toHaveLength(2);
    expect(await hook(disputeId, 'dispute.lost')).toMatchObject({ status: 'lost' });
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'lost' });
    // Lost is final: a late reversal moves nothing.
    await notice(d, 'PREARBITRATION_WON');
    expect(await balance()).toBe(before);
    await settle();
    expect(hookTypes(disputeId)).toEqual(['dispute.created', 'dispute.updated', 'dispute.updated', 'dispute.won', 'dispute.lost'].sort());
    expect(changes(d)).toEqual(['supplyDefenseDocument', 'defendDispute']);
  });

  it('PREARBITRATION_LOST loses a case under review: dispute.lost, no second debit (the amount is withdrawn already)', async () => {
    const { paymentId, disputeId, d } = await chargedBack({ amount: 20 });
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material()] })).status).toBe(200);
    expect((await submit(disputeId)).status).toBe(200);
    const before = await balance();
    await notice(d, 'PREARBITRATION_LOST');
    expect(await hook(disputeId, 'dispute.lost')).toMatchObject({ status: 'lost' });
    expect(await balance()).toBe(before);
    expect(await entries(paymentId, 'chargeback')).toHaveLength(1);
  });

  it('Adyen refusing the defense: 422, needs_response with last_error; a new staging replaces the document, then defends', async () => {
    const { disputeId, d } = await chargedBack();
    const first = pdf('first version');
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material(first)] })).status).toBe(200);

    adyen.refuseNextDispute('defendDispute', 'Defense reason is not applicable to this dispute');
    const refused = await submit(disputeId, `refused-${disputeId}`);
    expect([refused.status, refused.body.error?.code]).toEqual([422, 'PROVIDER_REJECTED']);
    expect(JSON.stringify(refused.body)).not.toContain('not applicable');
    const after = (await getDispute(disputeId)).body;
    expect(after).toMatchObject({
      status: 'needs_response',
      submitted_at: null,
      last_error: { code: 'adyen_defense_reason_is_not_applicable_to_this_dispute', message: expect.any(String), at: expect.any(String) },
    });
    expect(after.defense_reasons).toEqual(ourReasons(d));
    expect(await hook(disputeId, 'dispute.updated', (b) => b.last_error !== null)).toMatchObject({ status: 'needs_response' });
    expect(changes(d)).toEqual(['supplyDefenseDocument', 'defendDispute']);
    expect(adyen.dispute(d.pspReference)!.documents.get('DefenseMaterial')?.content).toBe(first);

    // Restaged with another document of the same type: the one supplied before is deleted first, then this one supplied.
    const second = pdf('second version, with the signed delivery note');
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material(second)] })).status).toBe(200);
    const ok = await submit(disputeId, `retry-${disputeId}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'under_review', last_error: null });
    expect(changes(d)).toEqual([
      'supplyDefenseDocument',
      'defendDispute',
      'deleteDisputeDefenseDocument',
      'supplyDefenseDocument',
      'defendDispute',
    ]);
    expect(calls(d, 'deleteDisputeDefenseDocument')[0]!.body).toMatchObject({ defenseDocumentType: 'DefenseMaterial' });
    expect(adyen.dispute(d.pspReference)).toMatchObject({ defendedWith: 'SupplyDefenseMaterial' });
    expect(adyen.dispute(d.pspReference)!.documents.get('DefenseMaterial')?.content).toBe(second);
  });

  it('Adyen refusing the documents: 422 and last_error; the same staging submitted again goes through, nothing sent twice', async () => {
    const { disputeId, d } = await chargedBack();
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material()] })).status).toBe(200);
    adyen.refuseNextDispute('supplyDefenseDocument', 'Invalid defense document');
    const refused = await submit(disputeId);
    expect([refused.status, refused.body.error?.code]).toEqual([422, 'PROVIDER_REJECTED']);
    expect((await getDispute(disputeId)).body).toMatchObject({
      status: 'needs_response',
      last_error: { code: 'adyen_invalid_defense_document' },
    });
    expect(changes(d)).toEqual(['supplyDefenseDocument']);
    expect((await submit(disputeId)).body).toMatchObject({ status: 'under_review', last_error: null });
    expect(changes(d)).toEqual(['supplyDefenseDocument', 'supplyDefenseDocument', 'defendDispute']);
  });

  it('a 500 to the documents: 502, a retry supplies and defends; after the defense failed, a retry only defends', async () => {
    const { disputeId, d } = await chargedBack();
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material()] })).status).toBe(200);
    adyen.failNext('supplyDefenseDocument', { status: 500 });
    const key = `submit-${disputeId}`;
    const failed = await submit(disputeId, key);
    expect([failed.status, failed.body.error?.code]).toEqual([502, 'PROVIDER_UNAVAILABLE']);
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'needs_response', last_error: null, submitted_at: null });
    // A submission in progress: the evidence cannot change under it.
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material()] })).body.error?.code).toBe(
      'DISPUTE_NOT_OPEN',
    );
    expect(adyen.dispute(d.pspReference)!.documents.size).toBe(0);

    // The documents go through; the defense does not answer.
    adyen.failNext('defendDispute', { status: 500 });
    expect((await submit(disputeId, key)).status).toBe(502);
    expect(changes(d)).toEqual(['supplyDefenseDocument', 'supplyDefenseDocument', 'defendDispute']);
    expect(adyen.dispute(d.pspReference)!.documents.size).toBe(1);

    // The retry resumes at the defense: what was committed as supplied is not sent again.
    const done = await submit(disputeId, key);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'under_review' });
    expect(changes(d)).toEqual(['supplyDefenseDocument', 'supplyDefenseDocument', 'defendDispute', 'defendDispute']);
    expect(adyen.dispute(d.pspReference)).toMatchObject({ supplies: 1, defendedWith: 'SupplyDefenseMaterial' });
    expect((await submit(disputeId, key)).body).toEqual(done.body);
    expect(changes(d)).toHaveLength(4);
  });

  it('Adyen hanging on the documents: 502 within the time limit; the retry (no key) resumes and goes through', async () => {
    const { disputeId, d } = await chargedBack();
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material()] })).status).toBe(200);
    adyen.failNext('supplyDefenseDocument', { hang: true });
    const started = Date.now();
    const hung = await submit(disputeId);
    expect([hung.status, hung.body.error?.code]).toEqual([502, 'PROVIDER_UNAVAILABLE']);
    expect(Date.now() - started).toBeLessThan(timeouts.total_ms * 2 + 1_000);
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'needs_response' });
    const done = await submit(disputeId);
    expect(done.body).toMatchObject({ status: 'under_review' });
    expect(changes(d)).toEqual(['supplyDefenseDocument', 'supplyDefenseDocument', 'defendDispute']);
    expect(adyen.dispute(d.pspReference)).toMatchObject({ supplies: 1, defendedWith: 'SupplyDefenseMaterial' });
  });
});

describe('submissions at once', () => {
  it('five submits at once: under_review, every defense Adyen saw the same request; the others answer it or ask for a retry', async () => {
    const { disputeId, d } = await chargedBack();
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material()] })).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 5 }, () => submit(disputeId)));
    for (const a of answers) expect([200, 503]).toContain(a.status);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(1);
    for (const a of answers.filter((x) => x.status === 503)) expect(a.body.error?.code).toBe('BUSY_RETRY_SAME_KEY');
    const after = await submit(disputeId);
    expect(after.body).toMatchObject({ status: 'under_review', last_error: null });
    expect(adyen.dispute(d.pspReference)).toMatchObject({ defendedWith: 'SupplyDefenseMaterial' });
    // However many reached Adyen, each was the same request: one key for the defense, no refusal seen.
    expect(new Set(calls(d, 'defendDispute').map((r) => r.headers['idempotency-key'])).size).toBe(1);
  });
});

describe('a submission after a refusal, when Adyen does not answer', () => {
  /** A dispute whose first submission Adyen refused at the defense, with these documents supplied. */
  async function refusedOnce(documents: unknown[]) {
    const c = await chargedBack();
    expect((await stage(c.disputeId, { defense_reason: 'SupplyDefenseMaterial', documents })).status).toBe(200);
    adyen.refuseNextDispute('defendDispute', 'Defense reason is not applicable to this dispute');
    expect((await submit(c.disputeId)).status).toBe(422);
    return c;
  }
  const invoice = () => ({ type: 'TIDorInvoice', mime: 'image/jpeg', content_base64: jpeg() });

  it('the removal of what the refused submission supplied failing (500): the retry removes it all, then supplies and defends', async () => {
    const { disputeId, d } = await refusedOnce([material(), invoice()]);
    const second = pdf('restaged without the invoice');
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material(second)] })).status).toBe(200);
    adyen.failNext('deleteDisputeDefenseDocument', { status: 500 });
    expect((await submit(disputeId)).status).toBe(502);
    const done = await submit(disputeId);
    expect(done.body).toMatchObject({ status: 'under_review', last_error: null });
    const held = adyen.dispute(d.pspReference)!;
    expect([...held.documents.keys()]).toEqual(['DefenseMaterial']);
    expect(held.documents.get('DefenseMaterial')?.content).toBe(second);
    expect(calls(d, 'deleteDisputeDefenseDocument').map((r) => (r.body as { defenseDocumentType: string }).defenseDocumentType)).toEqual([
      'DefenseMaterial',
      'DefenseMaterial',
      'TIDorInvoice',
    ]);
    expect(held.defendedWith).toBe('SupplyDefenseMaterial');
  });

  it('a document removed at Adyen by hand: its removal refused is no error; the next submission goes through', async () => {
    const { disputeId, d } = await refusedOnce([material(), invoice()]);
    adyen.dispute(d.pspReference)!.documents.delete('TIDorInvoice'); // in Adyen's Customer Area
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material()] })).status).toBe(200);
    expect((await submit(disputeId)).body).toMatchObject({ status: 'under_review', last_error: null });
    expect([...adyen.dispute(d.pspReference)!.documents.keys()]).toEqual(['DefenseMaterial']);
    expect(changes(d).slice(2)).toEqual([
      'deleteDisputeDefenseDocument',
      'deleteDisputeDefenseDocument',
      'supplyDefenseDocument',
      'defendDispute',
    ]);
  });

  it('answers lost after Adyen took the removal and the defense: each retry goes on from there; under_review, no last_error', async () => {
    const { disputeId, d } = await refusedOnce([material(), invoice()]);
    const second = pdf('restaged, the answers get lost');
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material(second)] })).status).toBe(200);

    // The removal is carried out, its answer lost: the retry finds nothing more to remove of that type.
    adyen.failNext('deleteDisputeDefenseDocument', { lost: true });
    expect((await submit(disputeId)).status).toBe(502);
    // The defense is taken, its answer lost: the retry is the same request (its Idempotency-Key), answered as before.
    adyen.failNext('defendDispute', { lost: true });
    expect((await submit(disputeId)).status).toBe(502);
    expect(adyen.dispute(d.pspReference)!.defendedWith).toBe('SupplyDefenseMaterial');
    // A refusal scripted now is Adyen's answer to a new request: the retry, a replay, is answered from its idempotency store.
    adyen.failNext('defendDispute', { status: 422 });
    const done = await submit(disputeId);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'under_review', last_error: null });
    expect(adyen.clearFaults()).toBe(1);
    const held = adyen.dispute(d.pspReference)!;
    expect([...held.documents.keys()]).toEqual(['DefenseMaterial']);
    expect(held.documents.get('DefenseMaterial')?.content).toBe(second);
    expect(held.supplies).toBe(2);
    const defends = calls(d, 'defendDispute');
    expect(defends).toHaveLength(3); // refused, lost, its retry
    expect(defends[2]!.headers['idempotency-key']).toBe(defends[1]!.headers['idempotency-key']);
    expect(defends[1]!.headers['idempotency-key']).not.toBe(defends[0]!.headers['idempotency-key']);
  });
});

describe('accepting it, and its deadline', () => {
  it('accept: acceptDispute (a 500 retried, its Idempotency-Key), accepted; repeats send nothing; the chargeback debits once', async () => {
    const { paymentId, disputeId, d } = await disputedAtAdyen({ amount: 45 });
    await notice(d, 'NOTIFICATION_OF_CHARGEBACK');
    const before = await balance();

    adyen.failNext('acceptDispute', { status: 500 });
    const failed = await accept(disputeId, `accept-${disputeId}`);
    expect([failed.status, failed.body.error?.code]).toEqual([502, 'PROVIDER_UNAVAILABLE']);
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'needs_response', accepted_at: null });
    const accepted = await accept(disputeId, `accept-${disputeId}`);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'accepted', accepted_at: expect.any(String), closed_at: expect.any(String) });
    expect(changes(d)).toEqual(['acceptDispute', 'acceptDispute']);
    expect(calls(d, 'acceptDispute').map((r) => r.headers['idempotency-key'])).toEqual([
      `dispute-accept-${d.pspReference}`,
      `dispute-accept-${d.pspReference}`,
    ]);
    expect(adyen.dispute(d.pspReference)!.accepted).toBe(true);
    expect(await hook(disputeId, 'dispute.updated', (b) => b.status === 'accepted')).toMatchObject({
      accepted_at: accepted.body.accepted_at,
    });

    expect((await accept(disputeId, `accept-${disputeId}`)).body).toEqual(accepted.body);
    expect((await accept(disputeId)).body).toMatchObject({ status: 'accepted', accepted_at: accepted.body.accepted_at });
    expect((await submit(disputeId)).body.error?.code).toBe('DISPUTE_NOT_OPEN');
    expect(changes(d)).toEqual(['acceptDispute', 'acceptDispute']);

    // Adyen's chargeback of an accepted dispute (disputeStatus Accepted): the amount withdrawn once; still accepted.
    await notice(d, 'CHARGEBACK');
    await notice(d, 'CHARGEBACK');
    expect(await balance()).toBe(before - 4500);
    expect(await entries(paymentId, 'chargeback')).toHaveLength(1);
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'accepted' });
    expect(changes(d)).toEqual(['acceptDispute', 'acceptDispute']);
  });

  it('DISPUTE_DEFENSE_PERIOD_ENDED: the deadline is its date; submit answers 409 DISPUTE_DEADLINE_PASSED without a call', async () => {
    const { disputeId, d } = await chargedBack();
    expect((await stage(disputeId, { defense_reason: 'SupplyDefenseMaterial', documents: [material()] })).status).toBe(200);
    const ended = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000).toISOString();
    await notice(d, 'DISPUTE_DEFENSE_PERIOD_ENDED', { eventDate: ended });
    expect(await hook(disputeId, 'dispute.updated', (b) => b.evidence_due_by === ended)).toMatchObject({ status: 'needs_response' });
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'needs_response', evidence_due_by: ended });

    const late = await submit(disputeId, `late-${disputeId}`);
    expect([late.status, late.body.error?.code]).toEqual([409, 'DISPUTE_DEADLINE_PASSED']);
    expect(late.body.error.message).toContain(ended);
    expect((await submit(disputeId)).status).toBe(409);
    expect(changes(d)).toEqual([]);
    expect((await getDispute(disputeId)).body).toMatchObject({ status: 'needs_response', submitted_at: null, last_error: null });
    // Told again (Adyen's retry): nothing changes.
    await notice(d, 'DISPUTE_DEFENSE_PERIOD_ENDED', { eventDate: ended });
    await settle();
    expect(hookTypes(disputeId)).toEqual(['dispute.created', 'dispute.updated', 'dispute.updated'].sort());
  });
});

describe('a chargeback of a card paid at dLocal', () => {
  it('is a dispute the merchant reads (no defense reasons) but cannot answer through us: 409 DISPUTE_NOT_DEFENDABLE', async () => {
    const created = await stack.admin.createMerchant({ name: 'Loja dLocal', notification_url: receiver.url });
    const key = await stack.admin.createKey(created.merchant.merchant_id, 'live');
    const m: LiveMerchant = { merchantId: created.merchant.merchant_id, apiKey: key.secret, webhookSecret: created.webhookSecret };
    await stack.admin.setRoutingRule(m.merchantId, 'card', '*', { providers: ['dlocal'] });
    const paymentId = await paidCard(80, m, FAKE_CARDS.approve);
    const cb = dlocal.chargebacks.open(cardOrderIdOf(paymentId), { status: 'COMPLETED' });
    expect((await dlocal.chargebacks.notify(cb.id))?.status).toBe(200);
    expect(await balanceMinorOf(stack, m.apiKey, 'BRL')).toBe(0);

    const disputeId = disputeIdOf(paymentId);
    const r = await api('GET', `/api/v1/disputes/${disputeId}`, undefined, undefined, m.apiKey);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      dispute_id: disputeId,
      payment_id: paymentId,
      kind: 'chargeback',
      status: 'needs_response',
      amount: 80,
    });
    expect(r.body.defense_reasons).toEqual([]);
    const before = adyen.requests.length;
    for (const [path, body] of [
      ['evidence', { defense_reason: 'SupplyDefenseMaterial', documents: [material()] }],
      ['submit', undefined],
      ['accept', undefined],
    ] as const) {
      const a = await api('POST', `/api/v1/disputes/${disputeId}/${path}`, body, `${path}-${disputeId}`, m.apiKey);
      expect([path, a.status, a.body.error?.code]).toEqual([path, 409, 'DISPUTE_NOT_DEFENDABLE']);
    }
    expect(adyen.requests.length).toBe(before);
    expect((await api('GET', `/api/v1/disputes/${disputeId}`, undefined, undefined, m.apiKey)).body).toMatchObject({
      status: 'needs_response',
      evidence: null,
    });
    // Another merchant's dispute is not found.
    expect((await getDispute(disputeId)).status).toBe(404);
    await expectLedgerEqualsBalance(stack, m, 'BRL');
  });
});
