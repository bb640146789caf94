/**
 * The approval-rate watch (DESIGN.md 9.2): a provider's current approval rate (its last 20 decided attempts) more than 20
 * points below its usual level (a slow moving average, counted after 50 attempts) is reported, once per quiet period,
 * per provider and kind; a steady rate, a short dip inside the margin, or too few attempts report nothing.
 */
import { ApprovalWatch, approvals, recordAttempt } from '../../shared/application/routing';

const watch = () => new ApprovalWatch({ window: 20, minBaseline: 50, drop: 0.2, alpha: 0.02, quietMs: 900_000 });
/** `n` attempts at a rate of `approved` in 10 (a fixed pattern, no randomness); the drops reported. */
function feed(w: ApprovalWatch, n: number, approved: number, at = 0, provider = 'adyen', kind = 'card') {
  const drops = [];
  for (let i = 0; i < n; i++) {
    const d = w.record(provider, kind, i % 10 < approved, at + i);
    if (d) drops.push(d);
  }
  return drops;
}

describe('ApprovalWatch', () => {
  it('a steady 90% reports nothing; a fall to 50% is reported once, with the usual level', () => {
    const w = watch();
    expect(feed(w, 200, 9)).toEqual([]);
    const drops = feed(w, 60, 5, 1_000);
    expect(drops).toHaveLength(1);
    // Reported as soon as the last 20 fall 20 points below the usual level (the window still holds some of the 90%).
    expect(drops[0]).toMatchObject({ provider: 'adyen', kind: 'card' });
    expect(drops[0]!.usual).toBeGreaterThan(0.8);
    expect(drops[0]!.rate).toBeLessThan(drops[0]!.usual - 0.2);
    expect(drops[0]!.rate).toBeGreaterThanOrEqual(0.5);
  });

  it('a dip inside the margin (90% to 75%) reports nothing', () => {
    const w = watch();
    feed(w, 200, 9);
    // 7 or 8 in 10 alternately: 75% on average.
    const drops = [];
    for (let i = 0; i < 100; i++) {
      const d = w.record('adyen', 'card', i % 20 < 15, 1_000 + i);
      if (d) drops.push(d);
    }
    expect(drops).toEqual([]);
  });

  it('nothing before the baseline: a provider declining from its first attempts is not "below its usual level"', () => {
    expect(feed(watch(), 49, 0)).toEqual([]);
  });

  it('per provider and kind; once per quiet period; a lasting drop becomes the usual level', () => {
    const w = watch();
    feed(w, 200, 9, 0, 'adyen', 'card');
    feed(w, 200, 9, 0, 'dlocal', 'card');
    expect(feed(w, 30, 2, 1_000, 'dlocal', 'card')).toHaveLength(1);
    expect(feed(w, 60, 9, 1_000, 'adyen', 'card')).toEqual([]);
    expect(feed(w, 30, 2, 2_000, 'dlocal', 'card')).toEqual([]); // inside the 15 minutes
    // Low for long enough, 20% is dLocal's usual level by then: nothing more after the quiet period.
    feed(w, 300, 2, 3_000, 'dlocal', 'card');
    expect(feed(w, 40, 2, 1_000_000, 'dlocal', 'card')).toEqual([]);
    // And a fall from there is a drop again.
    feed(w, 100, 8, 2_000_000, 'dlocal', 'card');
    expect(feed(w, 40, 0, 3_000_000, 'dlocal', 'card')).toHaveLength(1);
  });
});

describe('recordAttempt tells the observer of a drop', () => {
  it('decided card attempts only (a 3-D Secure wait is not one); PIX charges taken count as approved', () => {
    approvals.reset();
    const seen: string[] = [];
    const observer = {
      attempt: () => undefined,
      breakerChanged: () => undefined,
      failedOver: () => undefined,
      lateSuccess: () => undefined,
      approvalDropped: (p: string, k: string, rate: number) => void seen.push(`${p}:${k}:${rate}`),
    };
    const at = (i: number) => ({ latencyMs: 10, now: i });
    for (let i = 0; i < 100; i++) recordAttempt(observer, { provider: 'adyen', kind: 'card', outcome: 'approved', ...at(i) });
    for (let i = 0; i < 100; i++) recordAttempt(observer, { provider: 'adyen', kind: 'card', outcome: 'pending', ...at(100 + i) });
    expect(seen).toEqual([]);
    for (let i = 0; i < 20; i++) recordAttempt(observer, { provider: 'adyen', kind: 'card', outcome: 'declined', ...at(300 + i) });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^adyen:card:0\.\d+$/);
    for (let i = 0; i < 100; i++) recordAttempt(observer, { provider: 'efi', kind: 'pix', outcome: 'pending', ...at(i) });
    expect(seen).toHaveLength(1);
    approvals.reset();
  });
});
