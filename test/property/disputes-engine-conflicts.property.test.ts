/**
 * The disputes property of disputes-engine.property.test.ts under DynamoDB's conflict rules: the service reaches
 * DynamoDB Local through the conflict proxy (bin/local/conflict-proxy.ts), which cancels a transaction touching an
 * item another has in flight (TransactionConflict), as DynamoDB does and DynamoDB Local never shows; each write is held
 * a few milliseconds to widen the windows, and the fold of pending credits runs beside the sequence on the balance
 * item. The notices sent at once for one payment meet on its payment, case and balance items: conflicts must occur
 * (asserted), and the retries (transact.ts, commitDisputeStep) must still leave the same invariants.
 * One stack per file: the service's DynamoDB client is bound to the proxy for the whole file. It runs in `npm run proof`
 * (PROPERTY_DISPUTES_CONFLICT_RUNS=10), not in npm test: the conflict proxy's own suites (conflicts, contention-forced)
 * keep npm test's conflict mode, and the rules it checks here run there without the proxy (disputes-engine.property).
 */
import fc from 'fast-check';
import { runArbitrary, runDisputeSequence, SEEDED, startEngineRig, type EngineRig } from './disputes-engine';

const NUM_RUNS = Number(process.env.PROPERTY_DISPUTES_CONFLICT_RUNS ?? 0);
const inProof = NUM_RUNS > 0 ? describe : describe.skip;

inProof('disputes under DynamoDB’s conflict rules (npm run proof)', () => {
  let rig: EngineRig;
  beforeAll(async () => {
    rig = await startEngineRig({ conflicts: { latencyMs: 5 } });
  });
  afterAll(() => rig?.stop());

  it(
    `holds for ${NUM_RUNS} sequences (a seeded one first) under DynamoDB's conflict rules, and conflicts occurred`,
    async () => {
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(runArbitrary(12), (input) => runDisputeSequence(rig, input)),
        { numRuns: NUM_RUNS, endOnFailure: true, examples: [[SEEDED]] },
      );
      const stats = rig.stack.conflictStats!;
      expect(rig.figures.runs).toBe(NUM_RUNS);
      // The transactions went through the proxy, and some were cancelled as DynamoDB would: the retries converged anyway.
      expect(stats.transactions).toBeGreaterThan(0);
      expect(stats.transactionConflicts + stats.writeConflicts).toBeGreaterThan(0);
      if (process.env.PROPERTY_VERBOSE) console.log(JSON.stringify({ ...rig.figures, proxy: stats, ms: Date.now() - started }));
    },
    Math.max(120_000, NUM_RUNS * 20_000),
  );
});
