/**
 * The same property as money-and-states.property.test.ts, through the real DynamoDB adapters on DynamoDB Local
 * (started once by jest's globalSetup; each run gets a fresh table): fewer, shorter sequences, no concurrent
 * steps (real I/O would make interleavings unrepeatable, so a counterexample could not be replayed).
 *
 * Each sequence also runs on the in-memory ports, and the two must be indistinguishable to a merchant: same
 * answer to every operation, same objects in the same states, same balances, ledger, events and due work.
 * That is what makes the in-memory stores a faithful stand-in for the adapters in the unit tests.
 */
import fc from 'fast-check';
import { dynamoBackend, dynamoConnection, memoryBackend } from './backends';
import { opsArbitrary, runChecked } from './harness';

const NUM_RUNS = Number(process.env.PROPERTY_DYNAMODB_RUNS ?? 15);
const conn = dynamoConnection();
afterAll(() => conn.close());

it(`holds for ${NUM_RUNS} random sequences of up to 20 operations through the DynamoDB adapters, as in memory`, async () => {
  let transitions = 0;
  await fc.assert(
    fc.asyncProperty(opsArbitrary({ maxLength: 20, races: false }), async (ops) => {
      const table = await conn.table();
      try {
        const real = await runChecked(dynamoBackend(conn.doc, table.name), ops);
        const memory = await runChecked(memoryBackend(), ops);
        expect(await memory.fingerprint()).toEqual(await real.fingerprint());
        transitions += real.stats.transitions;
      } finally {
        await table.drop();
      }
    }),
    { numRuns: NUM_RUNS },
  );
  expect(transitions).toBeGreaterThan(0);
}, 180_000);
