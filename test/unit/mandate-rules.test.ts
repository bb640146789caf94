/** Mandates' pure rules: billing cycles by frequency, the charge checks, the sandbox outcome, the recurrence BR Code. */
import fc from 'fast-check';
import { AppError } from '../../shared/domain/errors';
import {
  addDays,
  canMandateTransition,
  cycleOf,
  daysBetween,
  MANDATE_FREQUENCIES,
  sandboxMandateOutcome,
  type Mandate,
} from '../../shared/domain/mandates/mandate';
import { buildRecurrenceBrCode, isValidBrCodeCrc, parseEmv } from '../../shared/domain/payments/pix-brcode';
import { checkCharge } from '../../shared/application/mandates';

const NOW = new Date('2026-11-27T15:00:00Z'); // 12:00 in São Paulo: today is 2026-11-27
const mandate = (over: Partial<Mandate> = {}) =>
  ({
    status: 'active',
    method: 'pix_automatico',
    currency: 'BRL',
    frequency: 'monthly',
    start_date: '2026-11-27',
    end_date: null,
    amount_minor: null,
    max_amount_minor: 10_000,
    ...over,
  }) as Mandate;
const codeOf = (f: () => unknown) => {
  try {
    f();
    return 'ok';
  } catch (e) {
    return e instanceof AppError ? e.code : String(e);
  }
};

describe('cycleOf', () => {
  it('counts weeks and runs of months from the start date’s day', () => {
    const m = { frequency: 'monthly' as const, start_date: '2026-01-31' };
    // February has no 31st: its cycle starts on its last day.
    const dates = ['2026-01-30', '2026-01-31', '2026-02-27', '2026-02-28', '2026-03-30', '2026-03-31'];
    expect(dates.map((d) => cycleOf(m, d))).toEqual([null, 0, 0, 1, 1, 2]);
    expect(cycleOf({ frequency: 'weekly', start_date: '2026-12-01' }, '2026-12-08')).toBe(1);
    expect(cycleOf({ frequency: 'quarterly', start_date: '2026-12-05' }, '2027-03-04')).toBe(0);
    expect(cycleOf({ frequency: 'quarterly', start_date: '2026-12-05' }, '2027-03-05')).toBe(1);
    expect(cycleOf({ frequency: 'annual', start_date: '2026-12-05' }, '2027-12-05')).toBe(1);
  });

  it('never decreases as the due date moves on, and moves by at most one cycle a period (property)', () => {
    const day = fc.integer({ min: 0, max: 3_000 }).map((n) => addDays('2026-01-01', n));
    fc.assert(
      fc.property(
        fc.constantFrom(...MANDATE_FREQUENCIES),
        day,
        fc.integer({ min: 0, max: 800 }),
        fc.integer({ min: 0, max: 400 }),
        (frequency, start, a, step) => {
          const m = { frequency, start_date: start };
          const first = cycleOf(m, addDays(start, a))!;
          const later = cycleOf(m, addDays(start, a + step))!;
          expect(first).toBeGreaterThanOrEqual(0);
          expect(later).toBeGreaterThanOrEqual(first);
          const minDays = { weekly: 7, monthly: 28, quarterly: 89, semiannual: 181, annual: 365 }[frequency];
          expect(later - first).toBeLessThanOrEqual(Math.floor(step / minDays) + 1);
        },
      ),
    );
  });
});

describe('checkCharge', () => {
  it('refuses each rule with its own code before anything is written', () => {
    expect(codeOf(() => checkCharge(mandate({ status: 'cancelled' }), { amountMinor: 100, dueDate: '2026-12-02' }, NOW))).toBe(
      'MANDATE_NOT_ACTIVE',
    );
    expect(codeOf(() => checkCharge(mandate(), { amountMinor: 10_001, dueDate: '2026-12-02' }, NOW))).toBe('MANDATE_AMOUNT_EXCEEDED');
    expect(
      codeOf(() =>
        checkCharge(mandate({ amount_minor: 5_000, max_amount_minor: null }), { amountMinor: 4_000, dueDate: '2026-12-02' }, NOW),
      ),
    ).toBe('VALIDATION_ERROR');
    expect(codeOf(() => checkCharge(mandate(), { amountMinor: 100, dueDate: '2026-11-28' }, NOW))).toBe('DUE_DATE_OUTSIDE_WINDOW');
    expect(codeOf(() => checkCharge(mandate(), { amountMinor: 100, dueDate: '2026-12-08' }, NOW))).toBe('DUE_DATE_OUTSIDE_WINDOW');
    expect(codeOf(() => checkCharge(mandate({ end_date: '2026-12-01' }), { amountMinor: 100, dueDate: '2026-12-02' }, NOW))).toBe(
      'DUE_DATE_OUTSIDE_WINDOW',
    );
    expect(codeOf(() => checkCharge(mandate({ method: 'card' }), { amountMinor: 100, dueDate: '2026-11-28' }, NOW))).toBe(
      'DUE_DATE_OUTSIDE_WINDOW',
    );
  });

  it('answers the cycle inside the window (2 to 10 days ahead for PIX, today for cards)', () => {
    expect(checkCharge(mandate(), { amountMinor: 100, dueDate: '2026-11-29' }, NOW)).toBe(0);
    expect(checkCharge(mandate(), { amountMinor: 100, dueDate: '2026-12-07' }, NOW)).toBe(0);
    expect(checkCharge(mandate({ frequency: 'weekly' }), { amountMinor: 100, dueDate: '2026-12-07' }, NOW)).toBe(1);
    expect(checkCharge(mandate({ method: 'card' }), { amountMinor: 100, dueDate: '2026-11-27' }, NOW)).toBe(0);
    expect(daysBetween('2026-11-27', '2026-12-07')).toBe(10);
  });
});

describe('statuses and the sandbox', () => {
  it('moves only along the table; the sandbox rejects 00000000272, holds 00000000434, approves the rest', () => {
    expect(canMandateTransition('pending_approval', 'active')).toBe(true);
    expect(canMandateTransition('active', 'rejected')).toBe(false);
    expect(canMandateTransition('cancelled', 'active')).toBe(false);
    expect(sandboxMandateOutcome('000.000.002-72')).toBe('reject');
    expect(sandboxMandateOutcome('00000000191')).toBe('approve');
    expect(sandboxMandateOutcome('00000000434')).toBe('hold');
  });

  it('the recurrence QR: a valid BR Code naming the recurrence’s location, no amount and no key', () => {
    const code = buildRecurrenceBrCode({
      merchantName: 'Academia Forte',
      merchantCity: 'SAO PAULO',
      location: 'https://pix.example.com/rec/abc',
    });
    expect(isValidBrCodeCrc(code)).toBe(true);
    const f = parseEmv(code);
    expect(f['54']).toBeUndefined();
    expect(parseEmv(f['80']!)).toEqual({ '00': 'br.gov.bcb.pix', '25': 'pix.example.com/rec/abc' });
  });
});
