/**
 * The same property as money-and-states.property.test.ts, through the real DynamoDB adapters on DynamoDB Local
 * (started once by jest's globalSetup; each run gets a fresh table): fewer, shorter sequences, no concurrent
 * steps (real I/O would make interleavings unrepeatable, so a counterexample could not be replayed).
 *
 * Each sequence also runs on the in-memory ports, and the two must be indistinguishable to a merchant: same
 * answer to every operation, same objects in the same states, same balances, ledger, events and due work.
 * That is what makes the in-memory stores a faithful stand-in for the adapters in the unit tests.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { startConflictProxy } from '../../bin/local/conflict-proxy';
import { ledgerFolder } from '../../shared/adapters/dynamodb/ledger-fold';
import { engines } from '../support/engines';
import { dynamoBackend, dynamoConnection, memoryBackend } from './backends';
import { opsArbitrary, runChecked, type Op } from './harness';

// npm test runs a few sequences; the proof (npm run proof, in CI) runs 15 and 8, the long case kept out of npm test's time.
const NUM_RUNS = Number(process.env.PROPERTY_DYNAMODB_RUNS ?? 3);
const conn = dynamoConnection();
afterAll(() => conn.close());

const OPS = opsArbitrary({ maxLength: 20, races: false });
/**
 * A sequence that moves objects between states (in memory), drawn with a fixed seed and run before the random ones
 * (fast-check's examples): about 4 draws in 10 make no transition, so a few random draws alone can all test little.
 */
async function aSequenceWithTransitions(): Promise<Op[]> {
  for (const ops of fc.sample(OPS, { seed: 20261126, numRuns: 50 }))
    if ((await runChecked(memoryBackend(), ops)).stats.transitions > 0) return ops;
  throw new Error('no seeded sequence makes a transition');
}

it(
  `holds for ${NUM_RUNS} random sequences of up to 20 operations and a seeded one through the DynamoDB adapters, as in memory`,
  async () => {
    let transitions = 0;
    await fc.assert(
      fc.asyncProperty(OPS, async (ops) => {
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
      { numRuns: NUM_RUNS, examples: [[await aSequenceWithTransitions()]] },
    );
    expect(transitions).toBeGreaterThan(0);
  },
  Math.max(180_000, NUM_RUNS * 20_000),
);

const CONFLICT_RUNS = Number(process.env.PROPERTY_CONFLICT_RUNS ?? 2);

/**
 * Issue 22: the same, with the adapters reaching DynamoDB Local through the conflict proxy (DynamoDB's
 * transaction conflict rules) and a fold of pending credits running all the time beside the sequence, as the
 * stream worker does on AWS. Its transactions meet the debits' and each other's on the balance items; every
 * answer, balance and ledger must still be the in-memory one, and balance = ledger sum, never negative.
 */
it(
  `holds for ${CONFLICT_RUNS} random sequences and a seeded one under DynamoDB's conflict rules with the fold running concurrently`,
  async () => {
    const proxy = await startConflictProxy({ target: engines().dynamodb, latencyMs: 3 });
    const doc = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: proxy.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
      { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } },
    );
    let folded = 0;
    let viaProxy: number;
    try {
      await fc.assert(
        fc.asyncProperty(OPS, async (ops) => {
          const table = await conn.table();
          const folder = ledgerFolder(doc, () => table.name);
          let running = true;
          const background = (async () => {
            while (running) {
              folded += (await folder.sweep('9999', 100)).folded;
              await new Promise((r) => setTimeout(r, 2));
            }
          })();
          try {
            const real = await runChecked(dynamoBackend(doc, table.name), ops);
            const memory = await runChecked(memoryBackend(), ops);
            expect(await memory.fingerprint()).toEqual(await real.fingerprint());
          } finally {
            running = false;
            await background;
            await table.drop();
          }
        }),
        { numRuns: CONFLICT_RUNS, examples: [[await aSequenceWithTransitions()]] },
      );
      viaProxy = proxy.stats.transactions;
    } finally {
      doc.destroy();
      await proxy.stop();
    }
    expect(viaProxy).toBeGreaterThan(0); // the adapters' transactions went through the conflict rules
    if (process.env.PROPERTY_VERBOSE) console.log(`background fold took ${folded} credits`); // timing decides how many
  },
  Math.max(240_000, CONFLICT_RUNS * 40_000),
);
