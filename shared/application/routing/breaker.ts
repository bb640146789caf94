/**
 * The breaker per provider and routed kind (DESIGN.md 9.2): after `openAfter` consecutive calls without an answer the
 * provider is skipped for `pauseMs`; then one call goes through as a probe: an answer closes it, another no-answer
 * pauses it again. Kept in the function's memory (each warm container has its own), so a provider that is down costs
 * each container `openAfter` timeouts, not one per payment; a state change is logged and counted by the caller.
 */
export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerOptions {
  /** Consecutive no-answers that open it. */
  readonly openAfter: number;
  /** How long an open breaker skips its provider before a probe. */
  readonly pauseMs: number;
}

export const BREAKER_DEFAULTS: BreakerOptions = { openAfter: 3, pauseMs: 30_000 };

interface Slot {
  failures: number;
  openUntil: number | null;
  /** A probe in flight since this time (half-open): only one at a time; a probe that never reports frees after a pause. */
  probeSince: number | null;
}

export interface BreakerChange {
  readonly provider: string;
  readonly kind: string;
  readonly to: BreakerState;
}

export class Breakers {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly opts: BreakerOptions = BREAKER_DEFAULTS) {}

  private slot(provider: string, kind: string): Slot {
    const k = `${provider}\u0000${kind}`;
    let s = this.slots.get(k);
    if (!s) {
      s = { failures: 0, openUntil: null, probeSince: null };
      this.slots.set(k, s);
    }
    return s;
  }

  state(provider: string, kind: string, now: number): BreakerState {
    const s = this.slot(provider, kind);
    if (s.openUntil === null) return 'closed';
    return now < s.openUntil ? 'open' : 'half_open';
  }

  /** Whether a call may go to this provider now; in half-open, the first caller becomes the probe. */
  allow(provider: string, kind: string, now: number): boolean {
    const s = this.slot(provider, kind);
    if (s.openUntil === null) return true;
    if (now < s.openUntil) return false;
    if (s.probeSince !== null && now - s.probeSince < this.opts.pauseMs) return false;
    s.probeSince = now;
    return true;
  }

  /** A call's result: `answered` (any answer, a decline included) or not; the change of state, when there was one. */
  record(provider: string, kind: string, answered: boolean, now: number): BreakerChange | null {
    const s = this.slot(provider, kind);
    const was = this.state(provider, kind, now);
    if (answered) {
      s.failures = 0;
      s.openUntil = null;
      s.probeSince = null;
      return was === 'closed' ? null : { provider, kind, to: 'closed' };
    }
    s.failures++;
    if (was !== 'closed' || s.failures >= this.opts.openAfter) {
      s.openUntil = now + this.opts.pauseMs;
      s.probeSince = null;
      return was === 'open' ? null : { provider, kind, to: 'open' };
    }
    return null;
  }

  /** Forgets every slot (a test's fresh start). */
  reset(): void {
    this.slots.clear();
  }

  /** Every slot's state (the stats CLI of a local process, tests). */
  snapshot(now: number): Array<{ provider: string; kind: string; state: BreakerState; failures: number }> {
    return [...this.slots.entries()].map(([k, s]) => {
      const [provider = '', kind = ''] = k.split('\u0000');
      return { provider, kind, state: this.state(provider, kind, now), failures: s.failures };
    });
  }
}
