/** The pay-in state machines, status reporting and money rules as pure functions. */
import {
  canTransition,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  PAYMENT_TRANSITIONS,
  sourcesOf,
  type PaymentStatus,
} from '../../shared/domain/payments/payment';
import { canSessionTransition, effectiveSessionStatus, reportedStatus } from '../../shared/domain/payments/session';
import { availableMethods, kindsOfCode, methodCodeFor, payableForSeconds, placesOfCode } from '../../shared/domain/payments/methods';
import { needsBeneficiary, REFUND_WINDOW_DAYS } from '../../shared/domain/refunds/refund';
import { formatMinor, fromMinor, toMinor } from '../../shared/domain/money';
import { COLLECTION_METHOD_CODES, findMethod } from '../../shared/domain/catalog/payment-methods';
import { COUNTRY_CODES } from '../../shared/domain/geo';

describe('payment transitions', () => {
  it('allows exactly the table of SPEC.md 3.1 plus DESIGN.md extensions', () => {
    const allowed = PAYMENT_STATUSES.flatMap((from) =>
      PAYMENT_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}->${to}`),
    );
    expect(allowed.sort()).toEqual(
      [
        'pending->success',
        'pending->failed',
        'pending->expired',
        'pending->cancelled',
        'pending_3ds->success',
        'pending_3ds->failed',
        'pending_3ds->expired',
        'processing->pending',
        'processing->pending_3ds',
        'processing->success',
        'processing->failed',
        'processing->expired',
        'success->refunded',
      ].sort(),
    );
  });

  it('never leaves a final status except success -> refunded', () => {
    for (const s of ['failed', 'cancelled', 'expired', 'refunded'] as PaymentStatus[]) expect(PAYMENT_TRANSITIONS[s]).toEqual([]);
    expect(canTransition('success', 'failed')).toBe(false);
  });

  it('sourcesOf is the inverse of the table', () => {
    expect(sourcesOf('success').sort()).toEqual(['pending', 'pending_3ds', 'processing']);
    expect(sourcesOf('cancelled')).toEqual(['pending']);
  });
});

describe('session status', () => {
  const now = new Date('2026-06-01T12:00:00Z');
  it('moves only from pending/processing to completed, expired or cancelled', () => {
    expect(canSessionTransition('pending', 'cancelled')).toBe(true);
    expect(canSessionTransition('completed', 'cancelled')).toBe(false);
    expect(canSessionTransition('expired', 'completed')).toBe(false);
  });

  it('reads a pending session past its expiry as expired', () => {
    expect(effectiveSessionStatus({ status: 'pending', expires_at: '2026-06-01T11:59:59Z' }, now)).toBe('expired');
    expect(effectiveSessionStatus({ status: 'pending', expires_at: '2026-06-01T12:00:01Z' }, now)).toBe('pending');
    expect(effectiveSessionStatus({ status: 'completed', expires_at: '2026-06-01T11:00:00Z' }, now)).toBe('completed');
  });

  it('reports the payment status once one exists, success rather than completed', () => {
    const later = '2026-06-01T13:00:00Z';
    expect(reportedStatus({ status: 'pending', expires_at: later, payment_status: null }, now)).toBe('pending');
    expect(reportedStatus({ status: 'pending', expires_at: later, payment_status: 'pending' }, now)).toBe('pending');
    expect(reportedStatus({ status: 'completed', expires_at: later, payment_status: 'success' }, now)).toBe('success');
    expect(reportedStatus({ status: 'cancelled', expires_at: later, payment_status: 'cancelled' }, now)).toBe('cancelled');
    expect(reportedStatus({ status: 'pending', expires_at: '2026-06-01T11:00:00Z', payment_status: 'pending' }, now)).toBe('expired');
  });
});

describe('money', () => {
  it.each([
    [10.5, 'BRL', 1050],
    [0.01, 'BRL', 1],
    [19.99, 'MXN', 1999],
    [15000, 'CLP', 15000],
    [1234.56, 'USD', 123456],
  ] as const)('%s %s is %s minor units', (amount, currency, minor) => {
    expect(toMinor(amount, currency)).toBe(minor);
    expect(fromMinor(minor, currency)).toBe(amount);
  });

  it.each([
    [10.123, 'BRL'],
    [100.5, 'CLP'],
    [0, 'BRL'],
    [-1, 'BRL'],
    [Number.NaN, 'BRL'],
    [1e13, 'BRL'],
  ] as const)('refuses %s %s', (amount, currency) => {
    expect(toMinor(amount, currency)).toBeNull();
  });

  it('formats with the currency’s decimals', () => {
    expect(formatMinor(1050, 'BRL')).toBe('10.50');
    expect(formatMinor(15000, 'CLP')).toBe('15000');
  });
});

describe('method kinds', () => {
  it('maps every kind only to codes of the catalog, in countries that have them', () => {
    for (const kind of PAYMENT_METHODS) {
      for (const country of COUNTRY_CODES) {
        const code = methodCodeFor(kind, country);
        if (code) expect(COLLECTION_METHOD_CODES).toContain(code);
      }
    }
    expect(methodCodeFor('pix', 'MEX')).toBeNull();
    expect(methodCodeFor('spei', 'MEX')).toBe('svc-mt-23');
  });

  it('pse is PSE (svc-mt-14) in Colombia and nowhere else; Colombian bank_transfer stays the account transfer (svc-mt-17)', () => {
    for (const country of COUNTRY_CODES) expect(methodCodeFor('pse', country)).toBe(country === 'COL' ? 'svc-mt-14' : null);
    expect(placesOfCode('svc-mt-14')).toEqual([{ kind: 'pse', country: 'COL' }]);
    expect(kindsOfCode('svc-mt-17')).toEqual(['bank_transfer']);
    expect(methodCodeFor('bank_transfer', 'COL')).toBe('svc-mt-17');
    const all = { methods: COLLECTION_METHOD_CODES, countries: COUNTRY_CODES };
    expect(findMethod('svc-mt-14', all, 'COL')).toMatchObject({ name: 'PSE', flow_type: 'redirect', payment_type: 'bank_transfer' });
    const col = availableMethods('COL', 'COP', 50_000_00, all);
    expect(col.map((m) => [m.id, m.method_code, m.flow_type])).toEqual([
      ['card', 'svc-mt-2', 'embedded'],
      ['pse', 'svc-mt-14', 'redirect'],
      ['bank_transfer', 'svc-mt-17', 'embedded'],
      ['cash', 'svc-mt-16', 'embedded'],
      ['wallet', 'svc-mt-15', 'redirect'],
      ['crypto', 'svc-mt-4', 'embedded'],
    ]);
    expect(col.find((m) => m.method_code === 'svc-mt-17')).toMatchObject({ name: 'Bre-B', type: 'bank_transfer' });
    for (const country of COUNTRY_CODES.filter((c) => c !== 'COL'))
      expect(availableMethods(country, 'USD', 100, all).map((m) => m.id)).not.toContain('pse');
    // Payable and refunded as the other bank transfers: a day to pay, 180 days to refund, to a beneficiary account.
    expect(payableForSeconds('pse')).toBe(payableForSeconds('bank_transfer'));
    expect(REFUND_WINDOW_DAYS.pse).toBe(REFUND_WINDOW_DAYS.bank_transfer);
    expect(needsBeneficiary('pse')).toBe(true);
  });

  it('payin is online banking (svc-mt-3) in Peru and nowhere else; Peruvian bank_transfer stays svc-mt-11', () => {
    for (const country of COUNTRY_CODES) expect(methodCodeFor('payin', country)).toBe(country === 'PER' ? 'svc-mt-3' : null);
    expect(placesOfCode('svc-mt-3')).toEqual([{ kind: 'payin', country: 'PER' }]);
    expect(kindsOfCode('svc-mt-11')).toEqual(['bank_transfer']);
    expect(methodCodeFor('bank_transfer', 'PER')).toBe('svc-mt-11');
    const all = { methods: COLLECTION_METHOD_CODES, countries: COUNTRY_CODES };
    expect(findMethod('svc-mt-3', all, 'PER')).toMatchObject({ name: 'Online banking', flow_type: 'redirect', payment_type: 'payin' });
    const per = availableMethods('PER', 'PEN', 100_00, all);
    expect(per.map((m) => [m.id, m.method_code, m.flow_type])).toEqual([
      ['card', 'svc-mt-2', 'embedded'],
      ['payin', 'svc-mt-3', 'redirect'],
      ['bank_transfer', 'svc-mt-11', 'embedded'],
      ['cip', 'svc-mt-12', 'embedded'],
      ['wallet', 'svc-mt-13', 'redirect'],
      ['crypto', 'svc-mt-4', 'embedded'],
    ]);
    expect(per.find((m) => m.id === 'payin')).toMatchObject({ type: 'payin', name: 'Online banking', enabled: true });
    // Not enabled when the merchant lacks svc-mt-3.
    const without = { methods: COLLECTION_METHOD_CODES.filter((c) => c !== 'svc-mt-3'), countries: COUNTRY_CODES };
    expect(availableMethods('PER', 'PEN', 100_00, without).find((m) => m.id === 'payin')?.enabled).toBe(false);
    for (const country of COUNTRY_CODES.filter((c) => c !== 'PER'))
      expect(availableMethods(country, 'USD', 100, all).map((m) => m.id)).not.toContain('payin');
    // Payable and refunded as PSE and the other bank transfers: a day to pay, 180 days to refund, to a beneficiary account.
    expect(payableForSeconds('payin')).toBe(86400);
    expect(payableForSeconds('payin')).toBe(payableForSeconds('pse'));
    expect(REFUND_WINDOW_DAYS.payin).toBe(180);
    expect(REFUND_WINDOW_DAYS.payin).toBe(REFUND_WINDOW_DAYS.pse);
    expect(needsBeneficiary('payin')).toBe(true);
  });

  it.each([
    ['ARG', 'ARS', 'svc-mt-25'],
    ['ECU', 'USD', 'svc-mt-26'],
  ] as const)('bank_transfer in %s is %s: offered, payable and refunded as the other bank transfers', (country, currency, code) => {
    expect(methodCodeFor('bank_transfer', country)).toBe(code);
    expect(placesOfCode(code)).toEqual([{ kind: 'bank_transfer', country }]);
    const all = { methods: COLLECTION_METHOD_CODES, countries: COUNTRY_CODES };
    const [min, max] = [findMethod(code, all, country)!.min_amount, findMethod(code, all, country)!.max_amount];
    const offered = (amount: number) => availableMethods(country, currency, amount * 100, all).find((m) => m.id === 'bank_transfer');
    expect(offered(min)).toMatchObject({ method_code: code, type: 'bank_transfer', flow_type: 'embedded', enabled: true });
    expect(offered(max + 1)?.enabled).toBe(false);
    const without = { methods: COLLECTION_METHOD_CODES.filter((c) => c !== code), countries: COUNTRY_CODES };
    expect(availableMethods(country, currency, min * 100, without).find((m) => m.id === 'bank_transfer')?.enabled).toBe(false);
  });

  it('marks a method disabled when the amount is outside its bounds or the merchant lacks it', () => {
    const all = { methods: COLLECTION_METHOD_CODES, countries: COUNTRY_CODES };
    const big = availableMethods('BRA', 'BRL', 200_000_00, all);
    expect(big.find((m) => m.id === 'pix')?.enabled).toBe(false);
    expect(big.find((m) => m.id === 'bank_transfer')?.enabled).toBe(true);
    const noBoleto = availableMethods('BRA', 'BRL', 100_00, { methods: ['svc-mt-1'], countries: ['BRA'] });
    expect(noBoleto.find((m) => m.id === 'boleto')?.enabled).toBe(false);
    expect(noBoleto.find((m) => m.id === 'pix')?.enabled).toBe(true);
  });
});
