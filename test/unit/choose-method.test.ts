/**
 * Which method a checkout payment uses (DESIGN.md 9.1): method_code among the session's offered codes, a kind shared
 * by two codes (Colombia's Bre-B and PSE), and the wallet chosen by name. A bad field is a 400 naming it.
 */
import { chooseMethod } from '../../shared/application/payins';
import { COLLECTION_METHOD_CODES } from '../../shared/domain/catalog/payment-methods';
import { COUNTRY_CODES } from '../../shared/domain/geo';
import { availableMethods, WALLET_CHOICES } from '../../shared/domain/payments/methods';
import { AppError } from '../../shared/domain/errors';

const all = { methods: COLLECTION_METHOD_CODES, countries: COUNTRY_CODES };
const offered = (
  country: Parameters<typeof availableMethods>[0],
  currency: Parameters<typeof availableMethods>[1],
  amountMinor: number,
  methods = all.methods,
  wallets: readonly string[] = WALLET_CHOICES,
) => availableMethods(country, currency, amountMinor, { methods, countries: COUNTRY_CODES, wallets }).filter((m) => m.enabled);

function refusal(f: () => unknown): { code: string; field: string | undefined } {
  try {
    f();
  } catch (e) {
    if (e instanceof AppError) return { code: e.code, field: (e.details as Array<{ field: string }> | undefined)?.[0]?.field };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('chooseMethod', () => {
  const col = offered('COL', 'COP', 50_000_00);

  it('a kind resolves to its own code when offered: bank_transfer in Colombia is Bre-B (svc-mt-17), pse is PSE', () => {
    expect(chooseMethod({ paymentMethod: 'bank_transfer' }, 'COL', col)).toEqual({ kind: 'bank_transfer', code: 'svc-mt-17' });
    expect(chooseMethod({ paymentMethod: 'pse' }, 'COL', col)).toEqual({ kind: 'pse', code: 'svc-mt-14' });
  });

  it('method_code picks the other code of the same payment type: PSE as a bank transfer', () => {
    expect(chooseMethod({ paymentMethod: 'bank_transfer', methodCode: 'svc-mt-14' }, 'COL', col)).toEqual({
      kind: 'pse',
      code: 'svc-mt-14',
    });
  });

  it('without method_code, a kind whose own code cannot be paid resolves to another offered code of that type', () => {
    const withoutBreB = offered(
      'COL',
      'COP',
      50_000_00,
      all.methods.filter((c) => c !== 'svc-mt-17'),
    );
    expect(chooseMethod({ paymentMethod: 'bank_transfer' }, 'COL', withoutBreB)).toEqual({ kind: 'pse', code: 'svc-mt-14' });
  });

  it('a method_code the session does not offer, or of another type, is a 400 naming method_code', () => {
    expect(refusal(() => chooseMethod({ paymentMethod: 'bank_transfer', methodCode: 'svc-mt-1' }, 'COL', col))).toEqual({
      code: 'VALIDATION_ERROR',
      field: 'method_code',
    });
    expect(refusal(() => chooseMethod({ paymentMethod: 'card', methodCode: 'svc-mt-14' }, 'COL', col))).toEqual({
      code: 'VALIDATION_ERROR',
      field: 'method_code',
    });
  });

  it('a wallet chosen by name among those offered; another, or on a method without a choice, is a 400 naming wallet', () => {
    const bra = offered('BRA', 'BRL', 100_00, all.methods, ['picpay', 'nupay']);
    expect(bra.find((m) => m.method_code === 'svc-mt-9')?.wallets).toEqual(['picpay', 'nupay']);
    expect(chooseMethod({ paymentMethod: 'wallet', wallet: 'nupay' }, 'BRA', bra)).toEqual({
      kind: 'wallet',
      code: 'svc-mt-9',
      wallet: 'nupay',
    });
    expect(refusal(() => chooseMethod({ paymentMethod: 'wallet', wallet: 'mercado_pago' }, 'BRA', bra)).field).toBe('wallet');
    // Without a choice, the first wallet offered is part of the intent (a retry never sends another).
    expect(chooseMethod({ paymentMethod: 'wallet' }, 'BRA', bra)).toEqual({ kind: 'wallet', code: 'svc-mt-9', wallet: 'picpay' });
    const per = offered('PER', 'PEN', 100_00);
    expect(refusal(() => chooseMethod({ paymentMethod: 'wallet', wallet: 'picpay' }, 'PER', per)).field).toBe('wallet');
  });

  it('a kind the session does not offer keeps no code (initiatePayment answers METHOD_NOT_AVAILABLE, as before)', () => {
    expect(chooseMethod({ paymentMethod: 'pix' }, 'COL', col)).toEqual({ kind: 'pix', code: null });
  });

  it('crypto is offered in every country whatever the session currency (the provider prices it)', () => {
    for (const [country, currency] of [
      ['BRA', 'BRL'],
      ['MEX', 'MXN'],
      ['ECU', 'USD'],
    ] as const)
      expect(chooseMethod({ paymentMethod: 'crypto' }, country, offered(country, currency, 5_00))).toEqual({
        kind: 'crypto',
        code: 'svc-mt-4',
      });
  });
});
