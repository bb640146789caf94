/**
 * Brazilian PIX payouts through dLocal payouts v3, between our domain and dLocal's wire: the request by PIX key
 * (each key type, CPF to B2C and CNPJ to B2B, what cannot be sent refused before any call), our reference with its
 * attempt suffix, the masked summary, dLocal's refusals in our words, which answers say for certain that nothing was
 * made (payoutNotProcessed), and a payout read back as our order state.
 */
import fc from 'fast-check';
import * as z from '../../shared/domain/zod';
import type { PayoutOrderRequest } from '../../shared/application/providers';
import { pixPayoutRequestSchema } from '../../shared/adapters/providers/dlocal/dlocal.pix-schemas';
import {
  NOT_PROCESSED_CODES,
  PIX_INVALID,
  payoutIdOfPixReference,
  payoutNotProcessed,
  pixOrderStateOf,
  pixPayoutBodyOf,
  pixReferenceOf,
  pixRefusalOf,
  pixSummaryOf,
  v3CodeOf,
  type DlocalPixOrderRequest,
} from '../../shared/adapters/providers/dlocal/dlocal.pix-transformers';
import { externalIdOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import type { DlocalPayout } from '../../shared/adapters/providers/dlocal/dlocal.schemas';

const CPF = '52998224725';
const CNPJ = '11222333000181';
const NOTIFY = 'https://api.example.com/providers/dlocal/payouts';
const payoutId = (bytes = new Uint8Array(16).fill(7)) => `po_${Buffer.from(bytes).toString('base64url')}`;

const order = (over: Partial<DlocalPixOrderRequest> = {}): DlocalPixOrderRequest => ({
  payoutId: payoutId(),
  methodCode: 'svc-mt-5',
  amountMinor: 150_050,
  currency: 'BRL',
  beneficiaryName: 'Maria  da Silva Santos',
  beneficiaryDocument: '529.982.247-25',
  documentType: 'CPF',
  instantTransferKey: ' maria@example.com.br ',
  instantTransferType: 'email',
  bankAccount: null,
  concept: 'Saque\u0000 semanal',
  callbackBaseUrl: 'https://api.example.com',
  ...over,
});

const bodyOf = (req: DlocalPixOrderRequest) => {
  const r = pixPayoutBodyOf(req, NOTIFY);
  if ('invalid' in r) throw new Error(r.invalid);
  return r.body;
};

describe('a PIX payout as dLocal’s request', () => {
  it('by email key to a CPF: B2C, reais with 2 decimals, the document as digits, the key trimmed, our external_id', () => {
    const req = order();
    expect(bodyOf(req)).toEqual({
      external_id: externalIdOf(req.payoutId),
      country: 'BR',
      payment_method_id: 'BANK_TRANSFER',
      amount: 1500.5,
      currency: 'BRL',
      purpose: 'OTHER',
      flow_type: 'B2C',
      description: 'Saque semanal',
      notification_url: NOTIFY,
      beneficiary: {
        first_name: 'Maria',
        last_name: 'da Silva Santos',
        document: { type: 'CPF', id: CPF },
        bank_account: { pix_key: 'maria@example.com.br', pix_key_type: 'EMAIL' },
      },
    });
  });

  it('each of our key types as its DICT name; a CNPJ beneficiary is B2B; every body passes our schema', () => {
    const cases: Array<[string, string, string]> = [
      ['cpf', CPF, 'CPF'],
      ['cnpj', CNPJ, 'CNPJ'],
      ['email', 'pagamentos@loja.com.br', 'EMAIL'],
      ['phone', '+5511987654321', 'PHONE'],
      ['random', '123e4567-e89b-12d3-a456-426614174000', 'EVP'],
    ];
    for (const [type, key, sent] of cases) {
      const b = bodyOf(order({ instantTransferType: type, instantTransferKey: key }));
      expect([type, b.beneficiary.bank_account]).toEqual([type, { pix_key: key, pix_key_type: sent }]);
      expect(z.safeParse(pixPayoutRequestSchema, b).success).toBe(true);
    }
    const company = bodyOf(order({ documentType: 'cnpj', beneficiaryDocument: '11.222.333/0001-81' }));
    expect(company.flow_type).toBe('B2B');
    expect(company.beneficiary.document).toEqual({ type: 'CNPJ', id: CNPJ });
    // One word is both first and last name (dLocal asks for both); no concept, no description.
    const single = bodyOf(order({ beneficiaryName: 'Xuxa', concept: null }));
    expect(single.beneficiary).toMatchObject({ first_name: 'Xuxa', last_name: 'Xuxa' });
    expect('description' in single).toBe(false);
  });

  it('what cannot be sent is refused before any call, in words for the merchant', () => {
    const cases: Array<[Partial<PayoutOrderRequest>, string]> = [
      [{ methodCode: 'svc-mt-6' }, PIX_INVALID.method],
      [{ currency: 'USD' }, PIX_INVALID.currency],
      [{ documentType: 'DNI' }, PIX_INVALID.document],
      [{ beneficiaryDocument: '52998224726' }, PIX_INVALID.document], // check digit
      [{ documentType: 'CNPJ', beneficiaryDocument: '12ABC34501DE35' }, PIX_INVALID.document], // alphanumeric CNPJ
      [{ instantTransferKey: null, instantTransferType: null }, PIX_INVALID.key],
      [
        {
          instantTransferKey: null,
          instantTransferType: null,
          bankAccount: { bankCode: '341', accountNumber: '123456', accountType: 'checking' },
        },
        PIX_INVALID.key,
      ],
      [{ instantTransferType: 'clabe', instantTransferKey: '002010077777777771' }, PIX_INVALID.key],
      [{ instantTransferType: 'cpf', instantTransferKey: '52998224726' }, PIX_INVALID.keyInvalid],
      [{ instantTransferType: 'phone', instantTransferKey: '11987654321' }, PIX_INVALID.keyInvalid],
      [{ beneficiaryName: '   ' }, PIX_INVALID.name],
    ];
    for (const [over, message] of cases) expect([over, pixPayoutBodyOf(order(over), NOTIFY)]).toEqual([over, { invalid: message }]);
    // The merchant's text never carries the key or the document.
    for (const m of Object.values(PIX_INVALID)) expect(m).not.toMatch(/\d{6,}|@/);
  });

  const ok = (v: unknown) => z.safeParse(pixPayoutRequestSchema, v);
  it('our schema is strict: a field we do not mean to send, or a document with punctuation, is a mismatch', () => {
    const b = bodyOf(order());
    expect(ok(b).success).toBe(true);
    expect(ok({ ...b, quote_id: 'q1' }).success).toBe(false);
    expect(ok({ ...b, beneficiary: { ...b.beneficiary, email: 'a@b.co' } }).success).toBe(false);
    const punctuated = { ...b.beneficiary, document: { type: 'CPF', id: '529.982.247-25' } };
    expect(ok({ ...b, beneficiary: punctuated }).success).toBe(false);
    expect(ok({ ...b, external_id: 'PAYOUT-1' }).success).toBe(false);
    expect(ok({ ...b, amount: 10.005 }).success).toBe(false);
  });

  it('the same payout always gives the same body (a resend is the same request)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.integer({ min: 100, max: 5_000_000 }), (bytes, amountMinor) => {
        const req = order({ payoutId: payoutId(bytes), amountMinor });
        expect(JSON.stringify(bodyOf(req))).toBe(JSON.stringify(bodyOf({ ...req })));
        expect(Math.round(bodyOf(req).amount * 100)).toBe(amountMinor);
      }),
    );
  });
});

describe('our reference', () => {
  it('is the payout’s external_id, or a later attempt’s with its suffix; it maps back to the payout', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.integer({ min: 2, max: 999 }), (bytes, attempt) => {
        const id = payoutId(bytes);
        const own = externalIdOf(id);
        expect(pixReferenceOf(id)).toBe(own);
        expect(pixReferenceOf(id, `${own}a${attempt}`)).toBe(`${own}a${attempt}`);
        expect(payoutIdOfPixReference(own)).toBe(id);
        expect(payoutIdOfPixReference(`${own}a${attempt}`)).toBe(id);
      }),
    );
    const id = payoutId();
    const other = externalIdOf(payoutId(new Uint8Array(16).fill(9)));
    // Another payout's reference, a malformed suffix or a first attempt numbered 1: our defect, never sent.
    for (const bad of [other, `${other}a2`, `${externalIdOf(id)}a1`, `${externalIdOf(id)}a02`, `${externalIdOf(id)}-2`])
      expect(() => pixReferenceOf(id, bad)).toThrow(RangeError);
    expect(payoutIdOfPixReference('po0707')).toBeNull();
    expect(bodyOf(order({ reference: `${externalIdOf(id)}a2` })).external_id).toBe(`${externalIdOf(id)}a2`);
  });
});

describe('what a payout keeps in clear', () => {
  it('the summary masks the document and the key', () => {
    const cases: Array<[string, string, string]> = [
      ['email', 'maria@example.com.br', 'm***@example.com.br'],
      ['cpf', CPF, '***725'],
      ['phone', '+5511987654321', '+55*******4321'],
      ['random', '123e4567-e89b-12d3-a456-426614174000', '123e4567-****-****-****-************'],
    ];
    for (const [type, key, masked] of cases) {
      const s = pixSummaryOf(bodyOf(order({ instantTransferType: type, instantTransferKey: key })));
      expect(s).toMatchObject({ document_type: 'CPF', document: '***725', pix_key: masked, amount: 1500.5, currency: 'BRL' });
      expect(JSON.stringify(s)).not.toContain(CPF);
      if (type !== 'cpf') expect(JSON.stringify(s)).not.toContain(key);
    }
  });
});

describe('dLocal’s answers in our words', () => {
  it('old and v3 numbers name the same errors', () => {
    expect([511, 514, 509, 303, 401, 402, 507, 3000, 5011, 0, null].map((c) => v3CodeOf(c))).toEqual([
      5011,
      5014,
      5009,
      3003,
      4001,
      4002,
      5007,
      3000,
      5011,
      0,
      null,
    ]);
  });

  it('each refusal of a create as what we do about it', () => {
    const cases: Array<[number | null, ReturnType<typeof pixRefusalOf>]> = [
      [5011, { kind: 'duplicate' }],
      [511, { kind: 'duplicate' }],
      [4001, { kind: 'misconfigured' }],
      [402, { kind: 'misconfigured' }],
      [3000, { kind: 'rejected', code: 'rejected_by_provider', page: true }],
      [3001, { kind: 'rejected', code: 'rejected_by_provider', page: true }],
      [3003, { kind: 'rejected', code: 'invalid_account', page: false }],
      [5007, { kind: 'rejected', code: 'method_not_available', page: true }],
      [5008, { kind: 'rejected', code: 'limit_exceeded', page: false }],
      [5012, { kind: 'rejected', code: 'rejected_by_compliance', page: false }],
      [513, { kind: 'rejected', code: 'rejected_by_compliance', page: false }],
      [5015, { kind: 'rejected', code: 'rejected_by_compliance', page: false }],
      [5014, { kind: 'rejected', code: 'provider_balance_insufficient', page: true }],
      [7003, { kind: 'rejected', code: 'rejected_by_provider', page: false }],
      [null, { kind: 'rejected', code: 'rejected_by_provider', page: false }],
    ];
    for (const [code, what] of cases) expect([code, pixRefusalOf(code)]).toEqual([code, what]);
  });

  it('only answers about us or dLocal that certainly made nothing count as not processed', () => {
    expect([...NOT_PROCESSED_CODES].sort()).toEqual([4001, 4002, 5007, 5014]);
    for (const c of [4001, 4002, 5007, 5014, 401, 402, 507, 514]) expect([c, payoutNotProcessed(c)]).toEqual([c, true]);
    // Validation errors, a used reference, limits and compliance declines, codes we could not read, no code at all.
    for (const c of [3000, 3001, 3003, 300, 5008, 5009, 5010, 5011, 511, 5012, 5013, 5015, 7003, 0, null, undefined, 4000.5])
      expect([c, payoutNotProcessed(c)]).toEqual([c, false]);
  });

  it('a payout read back as our order state', () => {
    const p = (status: DlocalPayout['status'], extra: Partial<DlocalPayout> = {}): DlocalPayout => ({
      id: 'PO-1',
      external_id: 'do00',
      status,
      ...extra,
    });
    expect(pixOrderStateOf(p('PENDING'))).toEqual({ kind: 'pending', orderId: 'PO-1', held: false });
    expect(pixOrderStateOf(p('DELIVERED'))).toEqual({ kind: 'pending', orderId: 'PO-1', held: false });
    expect(pixOrderStateOf(p('ON_HOLD'))).toEqual({ kind: 'pending', orderId: 'PO-1', held: true });
    expect(pixOrderStateOf(p('ON_HOLD_BY_COMPLIANCE'))).toEqual({ kind: 'pending', orderId: 'PO-1', held: true });
    expect(pixOrderStateOf(p('PAID', { last_updated: '2026-01-02T03:04:05Z' }))).toEqual({
      kind: 'settled',
      orderId: 'PO-1',
      at: '2026-01-02T03:04:05Z',
    });
    expect(pixOrderStateOf(p('REJECTED', { status_reason: 'ERROR_ACCOUNT_INCORRECT' }))).toMatchObject({
      kind: 'cancelled',
      failureCode: 'invalid_account',
    });
    expect(pixOrderStateOf(p('REJECTED', { status_reason: 'ERROR_BENEFICIARY_DOCUMENT_ID_INVALID' }))).toMatchObject({
      failureCode: 'invalid_beneficiary',
    });
    expect(pixOrderStateOf(p('REJECTED'))).toMatchObject({ kind: 'cancelled', failureCode: 'rejected_by_provider' });
    expect(pixOrderStateOf(p('CANCELLED'))).toMatchObject({ kind: 'cancelled', failureCode: 'cancelled_by_provider' });
  });
});
