/** The ledger's reason -> type table: every reason the code writes has a type, unknown ones fail loudly. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEDGER_REASONS, LEDGER_TYPES, ledgerDescription, ledgerType, reasonsOf } from '../../shared/domain/ledger';
import { RETURNS_FUNDS } from '../../shared/domain/payouts/payout';

const source = (path: string) => readFileSync(join(__dirname, '../..', path), 'utf8');

describe('ledger types', () => {
  it('maps every payout status that returns funds (payout_<status>) to payout_reversal', () => {
    for (const status of RETURNS_FUNDS) expect(ledgerType(`payout_${status}`)).toBe('payout_reversal');
  });

  it('maps every literal reason the repositories and use cases write', () => {
    const files = [
      'shared/adapters/dynamodb/payment.repository.ts',
      'shared/adapters/dynamodb/payout.repository.ts',
      'shared/adapters/dynamodb/refund.repository.ts',
      'shared/application/payouts/payouts.ts',
    ];
    const literals = files.flatMap((f) => [...source(f).matchAll(/(?<![_a-z])reason: '([a-z_]+)'/g)].map((m) => m[1]!));
    const movements = files.flatMap((f) => [...source(f).matchAll(/movement\([^)]*'([a-z_]+)'/g)].map((m) => m[1]!));
    const written = [...new Set([...literals, ...movements])];
    expect(written.length).toBeGreaterThanOrEqual(5);
    for (const reason of written) expect(LEDGER_REASONS).toHaveProperty(reason);
  });

  it('refuses a reason it does not know instead of guessing a type', () => {
    expect(() => ledgerType('fee')).toThrow('ledger reason without a type: fee');
  });

  it('gives every type at least one reason, and describes entries for people', () => {
    for (const type of LEDGER_TYPES) expect(reasonsOf(type).length).toBeGreaterThan(0);
    expect(ledgerDescription('refund_failed', 're_1')).toBe('Refund failed: amount returned re_1');
    expect(ledgerDescription('initial_test_balance', 'mch_1')).toBe('Initial test balance');
  });
});
