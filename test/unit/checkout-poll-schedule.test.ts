/** The hosted page's status polling backs off (issue 31): 2 s for 30 s after the shopper acts, 5 s until 2 min, then 10 s. */
import { HIDDEN_POLL_MS, nextPollDelay } from '../../shared/http/pages/checkout/client/poll-schedule';

describe('nextPollDelay', () => {
  it('polls every 2 s for the first 30 s, every 5 s until 2 minutes, then every 10 s', () => {
    expect([0, 1_000, 29_999].map((t) => nextPollDelay(t))).toEqual([2_000, 2_000, 2_000]);
    expect([30_000, 60_000, 119_999].map((t) => nextPollDelay(t))).toEqual([5_000, 5_000, 5_000]);
    expect([120_000, 600_000, 86_400_000].map((t) => nextPollDelay(t))).toEqual([10_000, 10_000, 10_000]);
  });

  it('a hidden tab polls at most every 10 s at any point of the schedule', () => {
    expect(HIDDEN_POLL_MS).toBe(10_000);
    expect([0, 45_000, 300_000].map((t) => nextPollDelay(t, true))).toEqual([10_000, 10_000, 10_000]);
  });

  it('a clock that moved back (negative elapsed time) starts the schedule over', () => {
    expect(nextPollDelay(-5_000)).toBe(2_000);
  });

  it('costs 15 polls in the first 30 s, 18 more until 2 minutes, then 6 a minute', () => {
    const polls = (untilMs: number) => {
      let n = 0;
      for (let t = nextPollDelay(0); t <= untilMs; t += nextPollDelay(t)) n++;
      return n;
    };
    expect(polls(30_000)).toBe(15);
    expect(polls(120_000) - polls(30_000)).toBe(18);
    expect(polls(180_000) - polls(120_000)).toBe(6);
  });
});
