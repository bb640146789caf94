/** The return watch of a completed live payout: when it starts, how its checks back off, when it ends. */
import { nextReturnCheck, RETURN_CHECK_BACKOFF_SECONDS, startReturnWatch } from '../../shared/domain/payouts/payout';

const t0 = new Date('2026-11-25T12:00:00.000Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

describe('return watch', () => {
  it('starts with a first check a minute after completion, and not at all with a window of 0', () => {
    expect(startReturnWatch(t0, 259_200)).toEqual({ until: at(259_200).toISOString(), next_check_at: at(60).toISOString(), checks: 0 });
    expect(startReturnWatch(t0, 0)).toBeNull();
    // A window shorter than the first step: the one check is at its end.
    expect(startReturnWatch(t0, 8)?.next_check_at).toBe(at(8).toISOString());
  });

  it('backs off 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, then daily: about 9 reads over a 3-day window, then ends', () => {
    let w = startReturnWatch(t0, 259_200)!;
    const gaps: number[] = [];
    let reads = 0;
    for (;;) {
      const now = new Date(w.next_check_at);
      reads++;
      const next = nextReturnCheck(w, now);
      if (!next) break;
      gaps.push((Date.parse(next.next_check_at) - now.getTime()) / 1000);
      w = next;
      expect(reads).toBeLessThan(50);
    }
    expect(gaps.slice(0, 6)).toEqual(RETURN_CHECK_BACKOFF_SECONDS.slice(1, 7));
    expect(w.next_check_at).toBe(at(259_200).toISOString());
    expect(reads).toBeLessThanOrEqual(10);
  });

  it('a check at or after the window end ends the watch', () => {
    const w = startReturnWatch(t0, 3_600)!;
    expect(nextReturnCheck(w, at(3_600))).toBeNull();
    expect(nextReturnCheck(w, at(3_599))?.next_check_at).toBe(at(3_600).toISOString());
  });
});
