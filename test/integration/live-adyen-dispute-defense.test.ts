/**
 * Card dispute defense through Adyen's Disputes API v30 (DESIGN.md 9.4, issue 44): our connector over HTTPS against the
 * fake Adyen, which checks every request and its own answers against our schemas of DisputeService-v30. Defense reasons
 * listed and mapped, supply then defend, a defense without the reason's documents refused, a repeated supply replacing,
 * delete, accept (its repeat answered the same by its Idempotency-Key), refusals after a defense, an accept or the
 * dispute's end (its notices), Adyen's document limits, and errors classified. No DynamoDB.
 */
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { ProviderRejected, ProviderUnavailable, type CardDisputeConnector, type HeldCardRequest } from '../../shared/application/providers';
import { adyenConnectors, type AdyenConnectors } from '../../shared/adapters/providers/adyen/adyen.connector';
import { disputeServiceResponseSchema } from '../../shared/adapters/providers/adyen/adyen.disputes.schemas';
import { assembleLiveProviders } from '../../shared/adapters/providers/live-providers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { startFakeAdyen, type FakeAdyen } from '../support/fake-adyen';

let adyen: FakeAdyen;
let connectors: AdyenConnectors;
let disputes: CardDisputeConnector;
let paymentPsp: string;
let receiver: Server;
const received: Array<Record<string, unknown>> = [];

/** Generous timeouts (a loaded machine answers a local fake slowly); the hang case sets a short one of its own. */
const build = (over: Record<string, unknown> = {}) =>
  adyenConnectors(
    parseProvidersConfig({ adyen: adyen.adyenConfig({ timeouts: { connect_ms: 3_000, total_ms: 4_000 }, ...over }) }, 'test').adyen!,
  );

beforeAll(async () => {
  adyen = await startFakeAdyen({ hangMs: 5_000 });
  connectors = build();
  disputes = connectors.disputes;
  // A paid card for the disputes to name (its pspReference is their originalReference).
  const req: HeldCardRequest = {
    paymentId: `pi_${randomBytes(16).toString('base64url')}`,
    amountMinor: 5000,
    currency: 'BRL',
    country: 'BRA',
    card: { number: '4111111145551142', holder_name: 'Maria Silva', expiry_month: '03', expiry_year: '2030', cvv: '737' },
    installments: 1,
    shopper: { reference: 'merchant-cus', email: 'maria@example.com' },
    returnUrl: 'http://127.0.0.1:1/providers/adyen/return/x',
  };
  const outcome = await connectors.heldCard.authorize(req);
  paymentPsp = (outcome as { pspReference: string }).pspReference;
  // Where the fake posts its notices (standing in for our /providers/adyen/notifications).
  receiver = createServer((r, res) => {
    let text = '';
    r.on('data', (c: Buffer) => (text += c.toString()));
    r.on('end', () => {
      received.push(JSON.parse(text) as Record<string, unknown>);
      res.end('[accepted]');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const addr = receiver.address();
  adyen.setNotificationUrl(`http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/providers/adyen/notifications`);
});
afterAll(async () => {
  connectors?.client.close();
  await new Promise((r) => receiver?.close(r));
  await adyen?.close();
});
afterEach(() => expect(adyen.violations).toEqual([]));

const fraud = () => adyen.openDispute({ paymentPspReference: paymentPsp, reasonCode: '10.4' });
/** A small file of each type (its first bytes are the type's). */
const pdf = (text = 'invoice') => Buffer.from(`%PDF-1.4\n${text}\n%%EOF`).toString('base64');
const jpeg = () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(32)]).toString('base64');
const tiff = () => Buffer.concat([Buffer.from([0x49, 0x49, 0x2a, 0x00]), randomBytes(32)]).toString('base64');
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: unknown) => (e instanceof ProviderRejected ? e.code : e),
  );

describe('Adyen dispute defense (Disputes API v30)', () => {
  it('is wired as Connectors.cardDisputes whenever the adyen block is, on the Disputes API root', () => {
    expect(assembleLiveProviders(null, null, connectors).connectors?.cardDisputes).toBe(disputes);
    expect(assembleLiveProviders(null, null, null).connectors?.cardDisputes).toBeUndefined();
    expect(adyen.disputesBaseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/ca\/services\/DisputeService\/v30$/);
  });

  it("lists the dispute's defense reasons with their documents in our words", async () => {
    const d = fraud();
    expect(await disputes.defenseReasons(d.pspReference)).toEqual([
      {
        code: 'SupplyDefenseMaterial',
        documents: [
          { type: 'DefenseMaterial', requirement: 'required' },
          { type: 'TIDorInvoice', requirement: 'optional' },
        ],
      },
      {
        code: 'GoodsOrServicesProvided',
        documents: [
          { type: 'InvoiceWithShippingAddress', requirement: 'one_or_more' },
          { type: 'DefenseMaterial', requirement: 'one_or_more' },
          { type: 'TIDorInvoice', requirement: 'optional' },
        ],
      },
    ]);
    const alt = adyen.openDispute({
      paymentPspReference: paymentPsp,
      reasonCode: '13.1',
      defenseReasons: [
        { code: 'SupplyDefenseMaterial', documents: [{ type: 'AlternativeDefenseMaterial', level: 'AlternativeRequired' }] },
      ],
    });
    expect(await disputes.defenseReasons(alt.pspReference)).toEqual([
      { code: 'SupplyDefenseMaterial', documents: [{ type: 'AlternativeDefenseMaterial', requirement: 'alternative_required' }] },
    ]);
    const other = adyen.openDispute({ paymentPspReference: paymentPsp, reasonCode: '13.3' });
    expect((await disputes.defenseReasons(other.pspReference)).map((r) => r.code)).toEqual([
      'GoodsNotReturned',
      'GoodsRepairedOrReplaced',
      'GoodsWereAsDescribed',
      'SupplyDefenseMaterial',
    ]);
  });

  it('supplies documents, then defends with a reason they satisfy', async () => {
    const d = fraud();
    await disputes.supplyDocuments(d.pspReference, [
      { type: 'DefenseMaterial', mime: 'application/pdf', contentBase64: pdf() },
      { type: 'TIDorInvoice', mime: 'image/tiff', contentBase64: tiff() },
    ]);
    await disputes.defend(d.pspReference, 'SupplyDefenseMaterial');
    const held = adyen.dispute(d.pspReference)!;
    expect(held.defendedWith).toBe('SupplyDefenseMaterial');
    expect([...held.documents.keys()].sort()).toEqual(['DefenseMaterial', 'TIDorInvoice']);
    expect(held.documents.get('TIDorInvoice')?.contentType).toBe('image/tiff');
    expect(held.supplies).toBe(1);
    // Defended: no more documents, no other defense, no accept.
    expect(
      await refusal(disputes.supplyDocuments(d.pspReference, [{ type: 'TIDorInvoice', mime: 'image/jpeg', contentBase64: jpeg() }])),
    ).toBe('adyen_dispute_is_already_defended');
    expect(await refusal(disputes.defend(d.pspReference, 'GoodsOrServicesProvided'))).toBe('adyen_dispute_is_already_defended');
    expect(await refusal(disputes.accept(d.pspReference))).toBe('adyen_dispute_is_already_defended');
    expect(adyen.dispute(d.pspReference)!.accepted).toBe(false);
  });

  it("refuses a defense without the chosen reason's documents (Required, and one of the OneOrMore), then takes it", async () => {
    const d = fraud();
    expect(await refusal(disputes.defend(d.pspReference, 'SupplyDefenseMaterial'))).toBe('adyen_required_defense_documents_are_missing');
    await disputes.supplyDocuments(d.pspReference, [{ type: 'TIDorInvoice', mime: 'application/pdf', contentBase64: pdf() }]);
    expect(await refusal(disputes.defend(d.pspReference, 'GoodsOrServicesProvided'))).toBe('adyen_required_defense_documents_are_missing');
    expect(await refusal(disputes.defend(d.pspReference, 'NotListed'))).toBe('adyen_invalid_defense_reason');
    expect(adyen.dispute(d.pspReference)!.defendedWith).toBeNull();
    await disputes.supplyDocuments(d.pspReference, [{ type: 'InvoiceWithShippingAddress', mime: 'image/jpeg', contentBase64: jpeg() }]);
    await disputes.defend(d.pspReference, 'GoodsOrServicesProvided');
    expect(adyen.dispute(d.pspReference)!.defendedWith).toBe('GoodsOrServicesProvided');
  });

  it('a repeated supply of a type replaces it; delete removes it (and a second delete is refused)', async () => {
    const d = fraud();
    const first = pdf('first');
    const second = pdf('second, restaged');
    await disputes.supplyDocuments(d.pspReference, [{ type: 'DefenseMaterial', mime: 'application/pdf', contentBase64: first }]);
    await disputes.supplyDocuments(d.pspReference, [{ type: 'DefenseMaterial', mime: 'application/pdf', contentBase64: first }]);
    await disputes.supplyDocuments(d.pspReference, [{ type: 'DefenseMaterial', mime: 'application/pdf', contentBase64: second }]);
    const held = adyen.dispute(d.pspReference)!;
    expect(held.documents.size).toBe(1);
    expect(held.documents.get('DefenseMaterial')?.content).toBe(second);
    expect(held.supplies).toBe(3);

    await disputes.deleteDocument(d.pspReference, 'DefenseMaterial');
    expect(held.documents.size).toBe(0);
    expect(await refusal(disputes.deleteDocument(d.pspReference, 'DefenseMaterial'))).toBe('adyen_defense_document_not_found');
    expect(await refusal(disputes.defend(d.pspReference, 'SupplyDefenseMaterial'))).toBe('adyen_required_defense_documents_are_missing');
    // A type no reason of this dispute lists.
    expect(
      await refusal(
        disputes.supplyDocuments(d.pspReference, [{ type: 'GoodsNotReturned', mime: 'application/pdf', contentBase64: pdf() }]),
      ),
    ).toBe('adyen_invalid_defense_document_type');
  });

  it('accepts; a repeated accept is answered the same (its Idempotency-Key); then nothing else is taken', async () => {
    const d = fraud();
    await disputes.accept(d.pspReference);
    await disputes.accept(d.pspReference);
    expect(adyen.dispute(d.pspReference)!.accepted).toBe(true);
    const accepts = adyen.requests.filter(
      (r) => r.path === '/acceptDispute' && (r.body as { disputePspReference: string }).disputePspReference === d.pspReference,
    );
    expect(accepts.map((r) => r.headers['idempotency-key'])).toEqual([
      `dispute-accept-${d.pspReference}`,
      `dispute-accept-${d.pspReference}`,
    ]);
    expect(await refusal(disputes.defend(d.pspReference, 'SupplyDefenseMaterial'))).toBe('adyen_dispute_is_already_accepted');
    expect(await disputes.defenseReasons(d.pspReference)).toEqual([]);
  });

  it("a dispute's notices name it and its payment; the ending ones end its defense", async () => {
    const d = fraud();
    const noc = adyen.disputeItem(d.pspReference, 'NOTIFICATION_OF_CHARGEBACK');
    expect(noc).toMatchObject({
      eventCode: 'NOTIFICATION_OF_CHARGEBACK',
      pspReference: d.pspReference,
      originalReference: paymentPsp,
      merchantReference: adyen.payment(noc.merchantReference)?.reference,
      amount: { currency: 'BRL', value: 5000 },
      additionalData: { chargebackReasonCode: '10.4', defensePeriodEndsAt: d.defensePeriodEndsAt },
    });
    expect(noc.additionalData?.hmacSignature).toBeTruthy();
    await adyen.notify([noc, adyen.disputeItem(d.pspReference, 'CHARGEBACK')]);
    expect(adyen.dispute(d.pspReference)!.closed).toBeNull();
    // A forged notice is not Adyen's: it ends nothing.
    await adyen.notify([adyen.disputeItem(d.pspReference, 'DISPUTE_DEFENSE_PERIOD_ENDED', {}, 'forged')]);
    expect(adyen.dispute(d.pspReference)!.closed).toBeNull();
    expect((await adyen.notify([adyen.disputeItem(d.pspReference, 'DISPUTE_DEFENSE_PERIOD_ENDED')])).body).toBe('[accepted]');
    expect(adyen.dispute(d.pspReference)!.closed).toBe('expired');
    expect(await refusal(disputes.defend(d.pspReference, 'SupplyDefenseMaterial'))).toBe('adyen_defense_period_has_ended');

    const won = fraud();
    await adyen.notify([adyen.disputeItem(won.pspReference, 'CHARGEBACK_REVERSED')]);
    expect(await refusal(disputes.accept(won.pspReference))).toBe('adyen_dispute_is_closed');
    const lost = fraud();
    await adyen.notify([adyen.disputeItem(lost.pspReference, 'SECOND_CHARGEBACK')]);
    expect(adyen.dispute(lost.pspReference)!.closed).toBe('lost');
    const prearb = fraud();
    await adyen.notify([adyen.disputeItem(prearb.pspReference, 'PREARBITRATION_LOST')]);
    expect(adyen.dispute(prearb.pspReference)!.closed).toBe('lost');
    const accepted = fraud();
    await disputes.accept(accepted.pspReference);
    expect(adyen.disputeItem(accepted.pspReference, 'CHARGEBACK').additionalData?.disputeStatus).toBe('Accepted');
    expect(received.length).toBeGreaterThanOrEqual(5);
  });

  it('classifies errors: a 500 or a hang is ProviderUnavailable, an unknown dispute or a 422 ProviderRejected', async () => {
    const d = fraud();
    adyen.failNext('defendDispute', { status: 500 });
    await expect(disputes.defend(d.pspReference, 'SupplyDefenseMaterial')).rejects.toBeInstanceOf(ProviderUnavailable);
    adyen.failNext('retrieveApplicableDefenseReasons', { status: 503 });
    await expect(disputes.defenseReasons(d.pspReference)).rejects.toBeInstanceOf(ProviderUnavailable);
    adyen.failNext('supplyDefenseDocument', { status: 422 });
    expect(
      await refusal(disputes.supplyDocuments(d.pspReference, [{ type: 'DefenseMaterial', mime: 'application/pdf', contentBase64: pdf() }])),
    ).toBe('adyen_000');
    expect(adyen.dispute(d.pspReference)!.documents.size).toBe(0);

    const short = build({ timeouts: { connect_ms: 1_000, total_ms: 1_000 } });
    adyen.failNext('acceptDispute', { hang: true });
    await expect(short.disputes.accept(d.pspReference)).rejects.toBeInstanceOf(ProviderUnavailable);
    short.client.close();
    expect(adyen.dispute(d.pspReference)!.accepted).toBe(false);

    expect(await refusal(disputes.defenseReasons('0000000000000000'))).toBe('adyen_dispute_not_found');
    const otherAccount = build({ merchant_account: 'SomeoneElseECOM' });
    await expect(otherAccount.disputes.accept(d.pspReference)).rejects.toBeInstanceOf(ProviderUnavailable);
    otherAccount.client.close();
  });

  it("records a document over Adyen's limits (sent around our connector's own check) and refuses it", async () => {
    const d = fraud();
    const client = connectors.client.at(adyen.disputesBaseUrl);
    const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2 * 1024 * 1024)]).toString('base64');
    const r = await client.post(
      'supplyDefenseDocument',
      '/supplyDefenseDocument',
      disputeServiceResponseSchema,
      {
        defenseDocuments: [{ content: big, contentType: 'application/pdf', defenseDocumentTypeCode: 'DefenseMaterial' }],
        disputePspReference: d.pspReference,
        merchantAccountCode: adyen.merchantAccount,
      },
      null,
    );
    expect(r.disputeServiceResult).toEqual({ success: false, errorMessage: 'Invalid defense document' });
    expect(adyen.violations.splice(0)).toEqual([
      "POST /supplyDefenseDocument DefenseMaterial: application/pdf over the acquirer's limit of 2 MB",
    ]);
    expect(adyen.dispute(d.pspReference)!.documents.size).toBe(0);
    // A body off the spec (required fields missing) is a 422 and a violation.
    await expect(
      client.post('defendDispute', '/defendDispute', disputeServiceResponseSchema, { disputePspReference: d.pspReference }, null),
    ).rejects.toMatchObject({ name: 'ProviderRejected', code: 'adyen_702' });
    const [violation, ...more] = adyen.violations.splice(0);
    expect(more).toEqual([]);
    expect(violation).toMatch(/^POST \/defendDispute: defenseReasonCode: .*; merchantAccountCode: /);
  });
});
