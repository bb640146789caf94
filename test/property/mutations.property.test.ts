/**
 * The properties can fail: each case breaks one guarantee of the in-memory stores (through MemoryTable.tamper,
 * never by editing the stores) and requires fast-check to find a counterexample that the named invariant
 * rejects. A property that passes against a broken store would prove nothing.
 */
import fc from 'fast-check';
import type { MemoryWrite } from '../support/in-memory';
import { memoryBackend } from './backends';
import { opsArbitrary, runSequence } from './harness';

const unconditional = (entity: MemoryWrite['entity']) => (writes: readonly MemoryWrite[]) =>
  writes.map((w) => (w.entity === entity ? { ...w, check: undefined } : w));
const without = (entity: MemoryWrite['entity']) => (writes: readonly MemoryWrite[]) => writes.filter((w) => w.entity !== entity);

it.each([
  ['the balance condition is skipped (a debit may overdraw)', unconditional('balance'), /balance \S+ \w+ is -\d+/],
  ['ledger entries are not written', without('ledger_entry'), /balance -?\d+ != ledger sum/],
  ['events are not written with their change', without('event'), /\d+ stored events, \d+ published/],
  [
    'the session conditions are skipped (a completed session completes again)',
    unconditional('session'),
    /session \S+ moved completed -> completed/,
  ],
  ['the payout conditions are skipped (a keyed retry debits again)', unconditional('payout'), /payout \S+ created twice|ledger of po_/],
])(
  'finds a counterexample when %s',
  async (_, rewrite, invariant) => {
    const details = await fc.check(
      fc.asyncProperty(opsArbitrary({ maxLength: 40, races: true }), async (ops) => {
        const backend = memoryBackend();
        backend.world.table.tamper(rewrite);
        await runSequence(backend, ops);
      }),
      { numRuns: 300, seed: 42 },
    );
    expect(details.failed).toBe(true);
    expect(String((details.errorInstance as Error | undefined)?.message)).toMatch(invariant);
  },
  120_000,
);
