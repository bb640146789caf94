/**
 * The reconciliation job's window: a pass at its scheduled time, then one at each young payment's early read-back
 * that falls inside the window (sleeping until then), and none when nothing is due soon (an idle stage returns at once).
 */
import { reconcileHeldWindow } from '../../shared/application/rails';
import type { PaymentDeps } from '../../shared/application/ports';

function harness(nextChecks: (string | null)[]) {
  let now = Date.parse('2026-11-25T12:00:00.000Z');
  const passes: number[] = [];
  const sleeps: number[] = [];
  const deps = {
    clock: { now: () => new Date(now) },
    connectors: { forMode: async () => null },
    store: {
      oldestProviderCheck: async () => nextChecks.shift() ?? null,
      dueForProviderCheck: async () => {
        passes.push(now);
        return [];
      },
      getPayment: async () => null,
      dueAttemptWatches: async () => [],
    },
  } as unknown as PaymentDeps;
  const sleep = async (ms: number) => {
    sleeps.push(ms);
    now += ms;
  };
  return { deps, passes, sleeps, sleep, at: (s: number) => new Date(now + s * 1000).toISOString() };
}

describe('reconcileHeldWindow', () => {
  it('idle: one pass, no sleep', async () => {
    const h = harness([null]);
    await reconcileHeldWindow(h.deps, { windowSeconds: 50, sleep: async (ms) => void h.sleeps.push(ms) });
    expect(h.passes).toHaveLength(1);
    expect(h.sleeps).toEqual([]);
  });

  it('a read-back due 10 s and 30 s from now gets its own passes; one past the window waits for the next run', async () => {
    const h = harness([]);
    // Three payments' next read-backs; a pass reads back (and takes off) those due at its time.
    let due = [h.at(10), h.at(30), h.at(70)];
    const store = h.deps.store as unknown as Record<string, (...a: never[]) => Promise<unknown>>;
    const pass = store.dueForProviderCheck!;
    store.oldestProviderCheck = async () => due[0] ?? null;
    store.dueForProviderCheck = (async (now: string) => {
      due = due.filter((t) => t > now);
      return pass();
    }) as never;
    await reconcileHeldWindow(h.deps, { windowSeconds: 50, sleep: h.sleep });
    expect(h.sleeps).toEqual([10_000, 20_000]);
    expect(h.passes).toHaveLength(3);
  });

  it('something always due: passes at least a second apart, bounded by maxPasses', async () => {
    const h = harness([]);
    (h.deps.store as { oldestProviderCheck: () => Promise<string | null> }).oldestProviderCheck = async () => h.at(-5);
    await reconcileHeldWindow(h.deps, { windowSeconds: 50, maxPasses: 5, sleep: h.sleep });
    expect(h.passes).toHaveLength(5);
    expect(h.sleeps.every((ms) => ms >= 1000)).toBe(true);
  });
});
