/** The live proofs' money check (test/proof/balances.ts): the balance item plus its credits still to fold is the ledger. */
import { balanceViolations, outstandingSummary } from '../proof/balances';

const balance = (currency: string, available: number) => ({ entity: 'balance', mode: 'live', currency, available_minor: available });
const entry = (currency: string, amount: number) => ({ entity: 'ledger_entry', mode: 'live', currency, amount_minor: amount });
const pending = (currency: string, amount: number) => ({ entity: 'pending_credit', mode: 'live', currency, amount_minor: amount });

it('holds while a credit is still to fold (the CI run that read the balance item alone failed here)', () => {
  const items = [balance('BRL', 716038), entry('BRL', 716038), entry('BRL', 5481), pending('BRL', 5481)];
  expect(balanceViolations(items, 'e')).toEqual([]);
});

it('names a balance that is not its ledger, per currency, and a negative balance', () => {
  const items = [balance('BRL', 100), entry('BRL', 105), balance('MXN', -5), entry('MXN', -5), entry('MXN', 0), pending('BRL', 0)];
  expect(balanceViolations(items, 'd')).toEqual(['d: BRL balance 100 + 0 to fold != ledger 105', 'd: negative MXN balance -5']);
});

it('counts a currency’s pending credits and ledger only for that currency, and the test mode not at all', () => {
  const items = [
    balance('BRL', 100),
    entry('BRL', 100),
    pending('MXN', 7),
    entry('MXN', 7),
    { ...pending('BRL', 9), mode: 'test' },
    { ...entry('BRL', 9), mode: 'test' },
  ];
  expect(balanceViolations(items, 'e')).toEqual([]);
  expect(balanceViolations([...items, pending('BRL', 1)], 'e')).toEqual(['e: BRL balance 100 + 1 to fold != ledger 100']);
});

it('summarizes what a proof still waits for, by check', () => {
  expect(outstandingSummary([])).toBe('0 outstanding');
  expect(outstandingSummary(['d: event x never delivered', 'a: p1 status=pending', 'd: event y never delivered'])).toBe(
    '3 outstanding (a 1, d 2)',
  );
});
