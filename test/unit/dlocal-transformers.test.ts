/** dLocal's wire and our domain: ids derived from ours, amounts, the live method table, statuses and codes in our words. */
import fc from 'fast-check';
import {
  dlocalAmount,
  externalIdOf,
  failureCodeOf,
  LIVE_METHODS,
  liveMethodOf,
  methodIdFor,
  minorOf,
  orderIdOf,
  outcomeOfStatus,
  paymentIdOfOrderId,
  payoutIdOfExternalId,
  payoutStateOf,
  refundIdOfReference,
  refundReferenceOf,
  refusalCodeOf,
  servedWallets,
} from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { payoutRequestOf, splitName, type BankPayoutRequest } from '../../shared/adapters/providers/dlocal/dlocal.payouts';
import { parseProvidersConfig, ProvidersConfigError } from '../../shared/adapters/providers/providers.config';

const id = (prefix: string, bytes: Uint8Array) => `${prefix}${Buffer.from(bytes).toString('base64url')}`;

describe('ids derived from ours', () => {
  it('order_id, external_id and the refund reference are two letters + 32 hex, and map back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const pi = id('pi_', bytes);
        const po = id('po_', bytes);
        const re = id('re_', bytes);
        expect(orderIdOf(pi)).toMatch(/^dp[0-9a-f]{32}$/);
        expect(externalIdOf(po)).toMatch(/^do[0-9a-f]{32}$/);
        expect(paymentIdOfOrderId(orderIdOf(pi))).toBe(pi);
        expect(payoutIdOfExternalId(externalIdOf(po))).toBe(po);
        expect(refundIdOfReference(refundReferenceOf(re))).toBe(re);
      }),
    );
    expect(() => orderIdOf('po_AAAAAAAAAAAAAAAAAAAAAA')).toThrow(RangeError);
    expect(paymentIdOfOrderId('jhg4v34v534')).toBeNull();
    expect(payoutIdOfExternalId(orderIdOf('pi_AAAAAAAAAAAAAAAAAAAAAA'))).toBeNull();
  });
});

describe('amounts', () => {
  it('dLocal counts major units: soles and pesos with cents, Chilean pesos whole', () => {
    expect(dlocalAmount(12_345, 'PEN')).toBe(123.45);
    expect(dlocalAmount(15_000, 'CLP')).toBe(15_000);
    expect(dlocalAmount(2_000_000, 'COP')).toBe(20_000);
    fc.assert(fc.property(fc.integer({ min: 1, max: 10 ** 12 }), (n) => expect(minorOf(dlocalAmount(n, 'ARS'), 'ARS')).toBe(n)));
  });
});

describe('the live method table', () => {
  it('each row is a method of its own country; Ecuador’s bank transfer is not there', () => {
    expect(liveMethodOf('svc-mt-12', 'PER')).toEqual({
      country: 'PER',
      currency: 'PEN',
      paymentMethodId: 'EF',
      flow: 'DIRECT',
      artefact: 'ticket',
    });
    expect(liveMethodOf('svc-mt-12', 'COL')).toBeNull();
    expect(liveMethodOf('svc-mt-26', 'ECU')).toBeNull();
    expect(liveMethodOf('svc-mt-25', 'ARG')).toMatchObject({
      currency: 'ARS',
      paymentMethodId: 'IO',
      flow: 'REDIRECT',
      artefact: 'redirect',
    });
    expect(liveMethodOf('svc-mt-25', 'ECU')).toBeNull();
    // PSE is svc-mt-14; Colombia's other bank transfer, svc-mt-17, is Bre-B: a QR shown on our page (DIRECT).
    expect(liveMethodOf('svc-mt-14', 'COL')).toMatchObject({ paymentMethodId: 'PC', flow: 'REDIRECT', artefact: 'redirect' });
    expect(liveMethodOf('svc-mt-17', 'COL')).toMatchObject({ paymentMethodId: 'BQ', flow: 'DIRECT', artefact: 'qr' });
    // Peru's online banking is BCP; Brazil's bank transfer is Pix via Open Finance, its wallet the wallets' choice.
    expect(liveMethodOf('svc-mt-3', 'PER')).toMatchObject({ currency: 'PEN', paymentMethodId: 'BC', flow: 'REDIRECT' });
    expect(liveMethodOf('svc-mt-7', 'BRA')).toMatchObject({ currency: 'BRL', paymentMethodId: 'OF', flow: 'REDIRECT' });
    expect(liveMethodOf('svc-mt-9', 'BRA')?.wallets).toEqual({ mercado_pago: 'MP', picpay: 'PP', nupay: 'NU' });
    expect(liveMethodOf('svc-mt-1', 'BRA')).toBeNull();
    // A ticket is DIRECT; a redirect is REDIRECT; a QR is DIRECT (shown by our page).
    for (const m of Object.values(LIVE_METHODS)) expect(m.flow).toBe(m.artefact === 'redirect' ? 'REDIRECT' : 'DIRECT');
    expect(Object.keys(LIVE_METHODS).sort()).toEqual(
      [
        'svc-mt-3',
        'svc-mt-7',
        'svc-mt-9',
        'svc-mt-11',
        'svc-mt-12',
        'svc-mt-13',
        'svc-mt-14',
        'svc-mt-15',
        'svc-mt-16',
        'svc-mt-17',
        'svc-mt-18',
        'svc-mt-19',
        'svc-mt-25',
      ].sort(),
    );
  });

  it('the Brazilian wallets: those the account serves, in its order; the chosen one’s id, default the first served', () => {
    const wallet = liveMethodOf('svc-mt-9', 'BRA');
    expect(servedWallets(wallet, undefined)).toEqual(['mercado_pago', 'picpay', 'nupay']);
    expect(servedWallets(wallet, ['nupay', 'picpay', 'nupay'])).toEqual(['nupay', 'picpay']);
    expect(servedWallets(liveMethodOf('svc-mt-7', 'BRA'), undefined)).toEqual([]);
    expect(servedWallets(null, ['picpay'])).toEqual([]);
    expect(methodIdFor(wallet!, ['mercado_pago', 'picpay', 'nupay'], undefined)).toBe('MP');
    expect(methodIdFor(wallet!, ['nupay', 'picpay'], undefined)).toBe('NU');
    expect(methodIdFor(wallet!, ['nupay', 'picpay'], 'picpay')).toBe('PP');
    expect(methodIdFor(wallet!, ['nupay', 'picpay'], 'mercado_pago')).toBeNull();
    // A wallet named for a method that offers no choice is not served either.
    expect(methodIdFor(liveMethodOf('svc-mt-7', 'BRA')!, [], undefined)).toBe('OF');
    expect(methodIdFor(liveMethodOf('svc-mt-7', 'BRA')!, [], 'picpay')).toBeNull();
  });
});

describe('statuses and codes in our words', () => {
  const p = { amount: 10.5, currency: 'PEN', approved_date: '2026-11-25T10:00:00.000Z' };
  it('payments', () => {
    expect(outcomeOfStatus('PAID', '200', p)).toEqual({ kind: 'paid', at: '2026-11-25T10:00:00.000Z', amountMinor: 1050 });
    expect(outcomeOfStatus('PENDING', '100', p)).toEqual({ kind: 'pending' });
    expect(outcomeOfStatus('AUTHORIZED', '600', p)).toEqual({ kind: 'pending' });
    expect(outcomeOfStatus('VERIFIED', '700', p)).toEqual({ kind: 'pending' });
    expect(outcomeOfStatus('CANCELLED', '400', p)).toEqual({ kind: 'cancelled' });
    expect(outcomeOfStatus('EXPIRED', undefined, p)).toEqual({ kind: 'expired' });
    expect(outcomeOfStatus('REJECTED', '301', p)).toEqual({ kind: 'failed', code: 'rejected_by_bank' });
    expect(failureCodeOf('302')).toBe('insufficient_funds');
    expect(failureCodeOf('322')).toBe('payer_account_invalid');
    expect(failureCodeOf('314')).toBe('rejected_by_provider');
    expect(failureCodeOf(undefined)).toBe('rejected_by_provider');
  });

  it('payouts, and refusals of a call: codes of ours, never dLocal’s text', () => {
    const po = { id: 'PO-1', external_id: 'do0', last_updated: '2026-11-25T10:00:00Z' };
    expect(payoutStateOf({ ...po, status: 'PAID' })).toEqual({ kind: 'settled', orderId: 'PO-1', at: '2026-11-25T10:00:00Z' });
    expect(payoutStateOf({ ...po, status: 'DELIVERED' })).toEqual({ kind: 'pending', orderId: 'PO-1', held: false });
    expect(payoutStateOf({ ...po, status: 'ON_HOLD' })).toEqual({ kind: 'pending', orderId: 'PO-1', held: true });
    expect(payoutStateOf({ ...po, status: 'REJECTED', status_reason: 'ERROR_BENEFICIARY_DOCUMENT_ID_INVALID' })).toMatchObject({
      kind: 'rejected',
      reason: 'invalid_beneficiary',
    });
    expect(payoutStateOf({ ...po, status: 'REJECTED', status_reason: 'Cuenta inexistente' })).toMatchObject({
      reason: 'rejected_by_provider',
    });
    expect(payoutStateOf({ ...po, status: 'CANCELLED' })).toMatchObject({ kind: 'cancelled' });
    expect(refusalCodeOf(5010)).toBe('method_not_available');
    expect(refusalCodeOf(515)).toBe('rejected_by_compliance');
    expect(refusalCodeOf(514)).toBe('provider_insufficient_funds');
    expect(refusalCodeOf(5001)).toBe('rejected_by_provider');
    expect(refusalCodeOf(null)).toBe('rejected_by_provider');
  });
});

describe('payout requests', () => {
  const base: BankPayoutRequest = {
    payoutId: 'po_AAAAAAAAAAAAAAAAAAAAAA',
    methodCode: 'svc-mt-32',
    amountMinor: 100_000,
    currency: 'COP',
    beneficiary: {
      name: 'María  Fernanda López',
      document: '1.020.304.050',
      documentType: 'CC',
      bankCode: '007',
      accountNumber: '123456789',
      accountType: 'checking',
    },
    notificationUrl: 'https://api.example/providers/dlocal/notifications',
  };
  it('the same payout gives the same body; documents lose their dots; names are split', () => {
    const a = payoutRequestOf(base);
    expect(a).toEqual(payoutRequestOf(base));
    expect(a).toMatchObject({
      body: {
        country: 'CO',
        amount: 1000,
        beneficiary: {
          first_name: 'María',
          last_name: 'Fernanda López',
          document: { type: 'CC', id: '1020304050' },
          bank_account: { account: '123456789', type: 'CHECKING', code: '007' },
        },
      },
    });
    expect(splitName('Cher')).toEqual({ first_name: 'Cher', last_name: 'Cher' });
  });
  it('what dLocal cannot pay is refused before any call', () => {
    expect(payoutRequestOf({ ...base, currency: 'PEN' })).toEqual({ invalid: 'currency_not_supported' });
    expect(payoutRequestOf({ ...base, amountMinor: 100_050 })).toEqual({ invalid: 'amount_not_allowed' });
    expect(payoutRequestOf({ ...base, beneficiary: { ...base.beneficiary, documentType: 'DNI' } })).toEqual({
      invalid: 'invalid_beneficiary',
    });
    expect(payoutRequestOf({ ...base, methodCode: 'svc-mt-5' })).toEqual({ invalid: 'method_not_available' });
    expect(payoutRequestOf({ ...base, beneficiary: { ...base.beneficiary, bankCode: undefined } })).toEqual({ invalid: 'invalid_account' });
    expect(
      payoutRequestOf({
        ...base,
        methodCode: 'svc-mt-31',
        currency: 'ARS',
        beneficiary: { ...base.beneficiary, documentType: 'CUIT', instantTransferKey: '28505909400909418135' },
      }),
    ).toEqual({
      invalid: 'invalid_account',
    });
  });
});

describe('the dlocal block of the providers document', () => {
  const good = {
    base_url: 'https://sandbox.dlocal.com',
    x_login: 'l',
    x_trans_key: 't',
    secret_key: 's',
    payouts: { client_id: 'c', client_secret: 'x' },
  };
  it('is optional, and a bad field is named without its value', () => {
    expect(parseProvidersConfig({}, 'test').dlocal).toBeUndefined();
    expect(parseProvidersConfig({ dlocal: good }, 'test').dlocal).toEqual(good);
    const e = (() => {
      try {
        parseProvidersConfig({ dlocal: { ...good, base_url: 'http://sandbox.dlocal.com', secret_key: '', extra: 1 } }, 'test');
      } catch (x) {
        return x as Error;
      }
      return null;
    })();
    expect(e).toBeInstanceOf(ProvidersConfigError);
    expect(e?.message).toMatch(/dlocal\.base_url/);
    expect(e?.message).toMatch(/dlocal\.secret_key/);
    expect(e?.message).toMatch(/extra/);
    expect(() => parseProvidersConfig({ dlocal: { ...good, payouts: { client_id: 'c' } } }, 'test')).toThrow(
      /dlocal\.payouts\.client_secret/,
    );
  });
});
