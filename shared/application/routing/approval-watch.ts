/**
 * A provider's approval rate falling below its usual level (DESIGN.md 9.2), per provider and kind, in this function
 * container's memory: the usual level is a slow moving average of its decided attempts (approved, declined, refused,
 * unanswered), the current one the share approved of its last `window` decided attempts. Once the provider has a
 * baseline, a current rate more than `drop` below the usual one is reported, at most once per `quietMs`. Each warm
 * container sees its own share of the traffic, so a drop is seen where enough attempts pass: `providers stats` gives
 * the stage-wide rates.
 */
export interface ApprovalWatchOptions {
  readonly window: number;
  /** Decided attempts seen before the usual level counts. */
  readonly minBaseline: number;
  /** How far below the usual level (a share: 0.2 = 20 points) the current rate must fall. */
  readonly drop: number;
  /** The moving average's weight of each new attempt. */
  readonly alpha: number;
  readonly quietMs: number;
}

export const APPROVAL_WATCH_DEFAULTS: ApprovalWatchOptions = { window: 20, minBaseline: 50, drop: 0.2, alpha: 0.02, quietMs: 900_000 };

interface Slot {
  usual: number;
  seen: number;
  recent: boolean[];
  lastAlertAt: number | null;
}

export interface ApprovalDrop {
  readonly provider: string;
  readonly kind: string;
  readonly rate: number;
  readonly usual: number;
}

export class ApprovalWatch {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly opts: ApprovalWatchOptions = APPROVAL_WATCH_DEFAULTS) {}

  /** One decided attempt; the drop it reveals, when it does. */
  record(provider: string, kind: string, approved: boolean, now: number): ApprovalDrop | null {
    const k = `${provider}\u0000${kind}`;
    const x = approved ? 1 : 0;
    let s = this.slots.get(k);
    if (!s) {
      s = { usual: x, seen: 0, recent: [], lastAlertAt: null };
      this.slots.set(k, s);
    }
    s.seen++;
    s.recent.push(approved);
    if (s.recent.length > this.opts.window) s.recent.shift();
    let drop: ApprovalDrop | null = null;
    if (s.seen >= this.opts.minBaseline && s.recent.length === this.opts.window) {
      const rate = s.recent.filter(Boolean).length / s.recent.length;
      const quiet = s.lastAlertAt !== null && now - s.lastAlertAt < this.opts.quietMs;
      if (rate < s.usual - this.opts.drop && !quiet) {
        s.lastAlertAt = now;
        drop = { provider, kind, rate, usual: Math.round(s.usual * 1000) / 1000 };
      }
    }
    // The usual level follows after the comparison, slowly: a drop does not become usual within one window.
    s.usual += this.opts.alpha * (x - s.usual);
    return drop;
  }

  reset(): void {
    this.slots.clear();
  }
}
