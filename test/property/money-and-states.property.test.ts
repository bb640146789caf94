/**
 * Property: random sequences of pay-in, payout and refund operations, across two merchants and two currencies,
 * sometimes two at once, never break the money and state invariants (test/property/harness.ts), against the
 * in-memory ports. 200 runs.
 */
import fc from 'fast-check';
import { opsArbitrary, runSequence, type RunStats } from './harness';
import { memoryBackend } from './backends';

/** 200 by default; PROPERTY_RUNS=5000 for a longer hunt. */
const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 200);

it(`holds for ${NUM_RUNS} random sequences of up to 40 operations (in memory)`, async () => {
  const totals = {
    runs: 0,
    ops: 0,
    transitions: 0,
    duplicates: 0,
    knownBugHits: 0,
    errors: {} as Record<string, number>,
    moves: {} as Record<string, number>,
    created: {} as Record<string, number>,
  };
  const add = (s: RunStats) => {
    totals.runs++;
    totals.ops += s.ops;
    totals.transitions += s.transitions;
    totals.knownBugHits += s.knownBugHits;
    totals.duplicates += s.duplicates;
    for (const [k, v] of Object.entries(s.errors)) totals.errors[k] = (totals.errors[k] ?? 0) + (v ?? 0);
    for (const [k, v] of Object.entries(s.moves)) totals.moves[k] = (totals.moves[k] ?? 0) + v;
    for (const [k, v] of Object.entries(s.created)) totals.created[k] = (totals.created[k] ?? 0) + v;
  };
  await fc.assert(
    fc.asyncProperty(opsArbitrary({ maxLength: 40, races: true }), async (ops) => {
      add(await runSequence(memoryBackend(), ops));
    }),
    { numRuns: NUM_RUNS },
  );
  // The generator must reach the interesting paths, or the property proves little.
  expect(totals.transitions).toBeGreaterThan(NUM_RUNS);
  expect(Object.keys(totals.errors)).toEqual(
    expect.arrayContaining(['INSUFFICIENT_BALANCE', 'SESSION_NOT_PENDING', 'PAYMENT_STATE_CONFLICT']),
  );
  if (process.env.PROPERTY_STATS) console.log(JSON.stringify(totals, null, 1));
}, 600_000);
