/**
 * The Adyen Disputes API v30 connector's pure parts and its calls against a scripted transport: requirement levels in our
 * words, the spec's example answer mapped, the supply body against our schema, Adyen's document limits and types, Adyen's
 * errorMessage as a code of ours, the Disputes API root derived from base_url (and the providers document's checks), and
 * each call's URL, headers, body and error classification.
 */
import { randomBytes } from 'node:crypto';
import * as z from '../../shared/domain/zod';
import { isStandardBase64 } from '../../shared/domain/base64';
import { ProviderRejected, ProviderUnavailable, type DefenseDocument } from '../../shared/application/providers';
import { NoAnswer, type HttpAnswer, type ProviderHttp } from '../../shared/adapters/providers/http-client';
import { adyenClient } from '../../shared/adapters/providers/adyen/adyen.client';
import { adyenConnectors } from '../../shared/adapters/providers/adyen/adyen.connector';
import {
  defenseReasonsResponseSchema,
  supplyDefenseDocumentRequestSchema,
} from '../../shared/adapters/providers/adyen/adyen.disputes.schemas';
import {
  acceptKeyOf,
  defenseDocumentProblem,
  defenseReasonsOf,
  refusalCodeOf,
  requirementOf,
  supplyRequest,
} from '../../shared/adapters/providers/adyen/adyen.disputes.transformers';
import { adyenEnvironmentOf, disputesBaseUrlOf } from '../../shared/adapters/providers/adyen/adyen.endpoints';
import { parseProvidersConfig, type ProvidersConfigError } from '../../shared/adapters/providers/providers.config';

const KEY = randomBytes(32).toString('hex');
const block = (over: Record<string, unknown> = {}) => ({
  base_url: 'https://checkout-test.adyen.com/v71',
  api_key: 'AQE-test-key',
  merchant_account: 'LatamECOM',
  hmac_key_hex: KEY,
  ...over,
});
const DISPUTE = 'DZ4DPSHB4WD2WN82';

/** Files of each type: the first bytes that type starts with, then `size` bytes in all. */
const file = (kind: 'pdf' | 'jpeg' | 'tiff-le' | 'tiff-be' | 'text', size = 64) => {
  const head = {
    pdf: Buffer.from('%PDF-1.4\n'),
    jpeg: Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
    'tiff-le': Buffer.from([0x49, 0x49, 0x2a, 0x00]),
    'tiff-be': Buffer.from([0x4d, 0x4d, 0x00, 0x2a]),
    text: Buffer.from('hello, this is not a pdf'),
  }[kind];
  return Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), 0x20)]).toString('base64');
};
const MB = 1024 * 1024;

describe('Adyen defense reasons in our words', () => {
  it('maps the four requirement levels; a level the spec does not list is optional (and flagged)', () => {
    expect(requirementOf('Required')).toEqual({ requirement: 'required', known: true });
    expect(requirementOf('OneOrMore')).toEqual({ requirement: 'one_or_more', known: true });
    expect(requirementOf('Optional')).toEqual({ requirement: 'optional', known: true });
    expect(requirementOf('AlternativeRequired')).toEqual({ requirement: 'alternative_required', known: true });
    expect(requirementOf('Mandatory')).toEqual({ requirement: 'optional', known: false });
  });

  it("maps the spec's example answer (DisputeService-v30 post-retrieveApplicableDefenseReasons-200), in Adyen's order", () => {
    const example = {
      defenseReasons: [
        {
          defenseDocumentTypes: [
            { available: false, defenseDocumentTypeCode: 'TIDorInvoice', requirementLevel: 'Optional' },
            { available: false, defenseDocumentTypeCode: 'GoodsNotReturned', requirementLevel: 'Required' },
          ],
          defenseReasonCode: 'GoodsNotReturned',
          satisfied: false,
        },
        {
          defenseDocumentTypes: [
            { available: false, defenseDocumentTypeCode: 'TIDorInvoice', requirementLevel: 'Optional' },
            { available: false, defenseDocumentTypeCode: 'DefenseMaterial', requirementLevel: 'Required' },
            { available: true, defenseDocumentTypeCode: 'AlternativeDefenseMaterial', requirementLevel: 'AlternativeRequired' },
          ],
          defenseReasonCode: 'SupplyDefenseMaterial',
          satisfied: true,
        },
        { defenseReasonCode: 'NoDocumentsListed', satisfied: true },
      ],
      disputeServiceResult: { success: true },
      somethingAdyenAdded: 1,
    };
    const parsed = z.parse(defenseReasonsResponseSchema, example);
    expect(defenseReasonsOf(parsed)).toEqual({
      reasons: [
        {
          code: 'GoodsNotReturned',
          documents: [
            { type: 'TIDorInvoice', requirement: 'optional' },
            { type: 'GoodsNotReturned', requirement: 'required' },
          ],
        },
        {
          code: 'SupplyDefenseMaterial',
          documents: [
            { type: 'TIDorInvoice', requirement: 'optional' },
            { type: 'DefenseMaterial', requirement: 'required' },
            { type: 'AlternativeDefenseMaterial', requirement: 'alternative_required' },
          ],
        },
        { code: 'NoDocumentsListed', documents: [] },
      ],
      unknownLevels: [],
    });
    expect(defenseReasonsOf({ disputeServiceResult: { success: true } }).reasons).toEqual([]);
    const odd = {
      ...example,
      defenseReasons: [
        {
          ...example.defenseReasons[0]!,
          defenseDocumentTypes: [{ available: false, defenseDocumentTypeCode: 'X', requirementLevel: 'New' }],
        },
      ],
    };
    expect(defenseReasonsOf(z.parse(defenseReasonsResponseSchema, odd))).toEqual({
      reasons: [{ code: 'GoodsNotReturned', documents: [{ type: 'X', requirement: 'optional' }] }],
      unknownLevels: ['New'],
    });
  });
});

describe('Adyen defense documents', () => {
  it('builds the supply body our schema of SupplyDefenseDocumentRequest takes: every document in one call', () => {
    const docs: DefenseDocument[] = [
      { type: 'DefenseMaterial', mime: 'application/pdf', contentBase64: file('pdf') },
      { type: 'InvoiceWithShippingAddress', mime: 'image/jpeg', contentBase64: file('jpeg') },
    ];
    const body = supplyRequest(DISPUTE, 'LatamECOM', docs);
    expect(z.safeParse(supplyDefenseDocumentRequestSchema, body).success).toBe(true);
    expect(body).toEqual({
      defenseDocuments: [
        { content: docs[0]!.contentBase64, contentType: 'application/pdf', defenseDocumentTypeCode: 'DefenseMaterial' },
        { content: docs[1]!.contentBase64, contentType: 'image/jpeg', defenseDocumentTypeCode: 'InvoiceWithShippingAddress' },
      ],
      disputePspReference: DISPUTE,
      merchantAccountCode: 'LatamECOM',
    });
    // Strict: a field the spec does not have is a mismatch.
    expect(z.safeParse(supplyDefenseDocumentRequestSchema, { ...body, note: 'x' }).success).toBe(false);
  });

  it('takes PDF up to 2 MB, JPEG and TIFF up to 10 MB, each only when its bytes are that type', () => {
    expect(defenseDocumentProblem({ mime: 'application/pdf', contentBase64: file('pdf', 2 * MB) })).toBeNull();
    expect(defenseDocumentProblem({ mime: 'application/pdf', contentBase64: file('pdf', 2 * MB + 1) })).toMatch(
      /over the acquirer's limit of 2 MB/,
    );
    expect(defenseDocumentProblem({ mime: 'image/jpeg', contentBase64: file('jpeg', 10 * MB) })).toBeNull();
    expect(defenseDocumentProblem({ mime: 'image/jpeg', contentBase64: file('jpeg', 10 * MB + 1) })).toMatch(/limit of 10 MB/);
    expect(defenseDocumentProblem({ mime: 'image/tiff', contentBase64: file('tiff-le') })).toBeNull();
    expect(defenseDocumentProblem({ mime: 'image/tiff', contentBase64: file('tiff-be') })).toBeNull();
    expect(defenseDocumentProblem({ mime: 'application/pdf', contentBase64: file('jpeg') })).toBe('content is not application/pdf');
    expect(defenseDocumentProblem({ mime: 'image/jpeg', contentBase64: file('text') })).toBe('content is not image/jpeg');
    expect(defenseDocumentProblem({ mime: 'image/png', contentBase64: file('pdf') })).toMatch(/content type must be/);
    expect(defenseDocumentProblem({ mime: 'application/pdf', contentBase64: 'JVBE\nRi0x' })).toBe('content must be base64');
    expect(defenseDocumentProblem({ mime: 'application/pdf', contentBase64: 'JVBERi0' })).toBe('content must be base64');
  });
});

describe("Adyen's refusal as a code of ours", () => {
  it('keeps the words of errorMessage in snake case, never a number, a reference or an address', () => {
    expect(refusalCodeOf('Required defense documents are missing')).toBe('adyen_required_defense_documents_are_missing');
    expect(refusalCodeOf('Dispute DZ4DPSHB4WD2WN82 not found')).toBe('adyen_dispute_not_found');
    expect(refusalCodeOf('Contact maria.silva@example.com or call 11987654321')).toBe('adyen_contact_or_call');
    expect(refusalCodeOf('Defense period has ended (2026-07-01)')).toBe('adyen_defense_period_has_ended');
    expect(refusalCodeOf(undefined)).toBe('adyen_dispute_refused');
    expect(refusalCodeOf('  ')).toBe('adyen_dispute_refused');
    const long = refusalCodeOf('word '.repeat(40));
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(/^adyen(_word)+$/);
  });

  it('an accept has one Idempotency-Key per dispute, at most 64 printable characters', () => {
    expect(acceptKeyOf(DISPUTE)).toBe(`dispute-accept-${DISPUTE}`);
    expect(acceptKeyOf('A'.repeat(80))).toMatch(/^dispute-accept-[0-9a-f]{40}$/);
  });
});

describe('The Disputes API root', () => {
  it("is derived from base_url: Adyen's test Checkout -> ca-test, its live one -> ca-live, another host -> its origin", () => {
    expect(disputesBaseUrlOf(block())).toBe('https://ca-test.adyen.com/ca/services/DisputeService/v30');
    expect(disputesBaseUrlOf(block({ base_url: 'https://1797a841fbb37ca7-AdyenDemo-checkout-live.adyenpayments.com/checkout/v71' }))).toBe(
      'https://ca-live.adyen.com/ca/services/DisputeService/v30',
    );
    expect(disputesBaseUrlOf(block({ base_url: 'https://abc-Co-checkout-live-us.adyenpayments.com/checkout/v71' }))).toBe(
      'https://ca-live.adyen.com/ca/services/DisputeService/v30',
    );
    expect(disputesBaseUrlOf(block({ base_url: 'https://127.0.0.1:4443/v71' }))).toBe(
      'https://127.0.0.1:4443/ca/services/DisputeService/v30',
    );
    expect(disputesBaseUrlOf(block({ disputes_base_url: 'https://ca-live-us.adyen.com/ca/services/DisputeService/v30/' }))).toBe(
      'https://ca-live-us.adyen.com/ca/services/DisputeService/v30',
    );
    expect(adyenEnvironmentOf('https://checkout-live.adyenpayments.com.evil.example/v71')).toBeNull();
    expect(adyenEnvironmentOf('not a url')).toBeNull();
  });

  it('disputes_base_url is validated at start: an https URL, not the other Adyen environment than base_url', () => {
    expect(
      parseProvidersConfig({ adyen: block({ disputes_base_url: 'https://ca-test.adyen.com/ca/services/DisputeService/v30' }) }, 't').adyen,
    ).toMatchObject({ disputes_base_url: 'https://ca-test.adyen.com/ca/services/DisputeService/v30' });
    expect(parseProvidersConfig({ adyen: block() }, 't').adyen?.disputes_base_url).toBeUndefined();
    const refused = (over: Record<string, unknown>) => {
      try {
        parseProvidersConfig({ adyen: block(over) }, 't');
      } catch (e) {
        return (e as ProvidersConfigError).problems;
      }
      return [];
    };
    expect(refused({ disputes_base_url: 'http://ca-test.adyen.com/ca/services/DisputeService/v30' })).toEqual([
      'adyen.disputes_base_url must be an https:// URL',
    ]);
    expect(refused({ disputes_base_url: 'https://ca-live.adyen.com/ca/services/DisputeService/v30' })).toEqual([
      "adyen.disputes_base_url is Adyen's live environment while adyen.base_url is its test one",
    ]);
    // A host that is not Adyen's (a fake, a proxy) is not judged.
    expect(
      refused({ base_url: 'https://127.0.0.1:4443/v71', disputes_base_url: 'https://ca-live.adyen.com/ca/services/DisputeService/v30' }),
    ).toEqual([]);
  });
});

/** A transport that records what was sent and answers from a script. */
function scripted(...answers: Array<HttpAnswer | Error>) {
  const sent: Array<{ url: string; headers: Record<string, string>; body: unknown }> = [];
  const http: ProviderHttp = {
    async send(req) {
      sent.push({ url: req.url, headers: req.headers ?? {}, body: req.body ? JSON.parse(req.body) : undefined });
      const a = answers.shift();
      if (!a) throw new Error('no scripted answer');
      if (a instanceof Error) throw a;
      return a;
    },
    close() {},
  };
  const cfg = parseProvidersConfig({ adyen: block() }, 't').adyen!;
  return { disputes: adyenConnectors(cfg, adyenClient(cfg, http)).disputes, sent };
}
const answer = (status: number, body?: unknown): HttpAnswer => ({
  status,
  headers: {},
  text: body === undefined ? '' : JSON.stringify(body),
});
const ok = answer(200, { disputeServiceResult: { success: true } });

describe('The Disputes API calls', () => {
  it("POSTs each operation to the Disputes API root with the API key and the spec's fields; only accept has a key", async () => {
    const { disputes, sent } = scripted(answer(200, { defenseReasons: [], disputeServiceResult: { success: true } }), ok, ok, ok, ok);
    expect(disputes.provider).toBe('adyen');
    await disputes.defenseReasons(DISPUTE);
    await disputes.supplyDocuments(DISPUTE, [{ type: 'DefenseMaterial', mime: 'application/pdf', contentBase64: file('pdf') }]);
    await disputes.deleteDocument(DISPUTE, 'DefenseMaterial');
    await disputes.defend(DISPUTE, 'SupplyDefenseMaterial');
    await disputes.accept(DISPUTE);
    const root = 'https://ca-test.adyen.com/ca/services/DisputeService/v30';
    expect(sent.map((s) => s.url)).toEqual([
      `${root}/retrieveApplicableDefenseReasons`,
      `${root}/supplyDefenseDocument`,
      `${root}/deleteDisputeDefenseDocument`,
      `${root}/defendDispute`,
      `${root}/acceptDispute`,
    ]);
    for (const s of sent) expect(s.headers['x-api-key']).toBe('AQE-test-key');
    expect(sent.map((s) => s.headers['idempotency-key'])).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      `dispute-accept-${DISPUTE}`,
    ]);
    const account = { disputePspReference: DISPUTE, merchantAccountCode: 'LatamECOM' };
    expect(sent[0]!.body).toEqual(account);
    expect(sent[2]!.body).toEqual({ defenseDocumentType: 'DefenseMaterial', ...account });
    expect(sent[3]!.body).toEqual({ defenseReasonCode: 'SupplyDefenseMaterial', ...account });
    expect(sent[4]!.body).toEqual(account);
  });

  it('success false is ProviderRejected (a code of ours); no answer, a 5xx, a refused key, an odd answer ProviderUnavailable', async () => {
    const rejected = await scripted(answer(200, { disputeServiceResult: { success: false, errorMessage: 'Dispute not found' } }))
      .disputes.defend(DISPUTE, 'X')
      .catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(ProviderRejected);
    expect(rejected).toMatchObject({ provider: 'adyen', operation: 'defendDispute', code: 'adyen_dispute_not_found', status: 200 });
    const reasons = await scripted(answer(200, { disputeServiceResult: { success: false } }))
      .disputes.defenseReasons(DISPUTE)
      .catch((e: unknown) => e);
    expect(reasons).toMatchObject({ operation: 'retrieveApplicableDefenseReasons', code: 'adyen_dispute_refused' });
    const http422 = await scripted(answer(422, { status: 422, errorCode: '702', errorType: 'validation' }))
      .disputes.accept(DISPUTE)
      .catch((e: unknown) => e);
    expect(http422).toMatchObject({ name: 'ProviderRejected', code: 'adyen_702', status: 422 });

    for (const a of [
      answer(500),
      answer(429),
      new NoAnswer('timeout'),
      answer(200, { nothing: true }),
      answer(200, { disputeServiceResult: { success: 'yes' } }),
    ])
      await expect(scripted(a).disputes.accept(DISPUTE)).rejects.toBeInstanceOf(ProviderUnavailable);
    const key = await scripted(answer(403, { status: 403, errorCode: '010' }))
      .disputes.defend(DISPUTE, 'X')
      .catch((e: unknown) => e);
    expect(key).toBeInstanceOf(ProviderUnavailable);
    expect((key as ProviderUnavailable).reason).toMatch(/dispute management role/);
  });

  it('sends nothing for no documents, and refuses before any call a document Adyen would not take', async () => {
    const { disputes, sent } = scripted();
    await disputes.supplyDocuments(DISPUTE, []);
    await expect(
      disputes.supplyDocuments(DISPUTE, [{ type: 'DefenseMaterial', mime: 'application/pdf', contentBase64: file('pdf', 2 * MB + 1) }]),
    ).rejects.toThrow(/DefenseMaterial not sent to Adyen: application\/pdf over the acquirer's limit of 2 MB/);
    expect(sent).toEqual([]);
  });
});

describe('isStandardBase64', () => {
  it('takes padded standard base64 only, and a 14 MB document without overflowing a stack', () => {
    expect(isStandardBase64('JVBERi0x')).toBe(true);
    expect(isStandardBase64('JVBERg==')).toBe(true);
    expect(isStandardBase64('JVBERi0=')).toBe(true);
    for (const bad of ['', 'JVBERi0', 'JVBE\nRi0x', 'JVB-Ri0x', 'JVB_Ri0x', '====', 'JV=ERi0x', 'JVBERi==x===']) {
      expect(isStandardBase64(bad)).toBe(false);
    }
    // A regular expression over this many characters once threw RangeError (V8's regexp backtracking stack).
    const big = 'QUFB'.repeat((14 * MB) / 4);
    expect(isStandardBase64(big)).toBe(true);
    expect(isStandardBase64(`${big.slice(0, -1)}!`)).toBe(false);
  });
});
