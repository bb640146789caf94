/**
 * The breaker per provider and kind and the stats fold of `providers stats` (DESIGN.md 9.2), as pure logic: when a
 * breaker opens, skips, probes and closes; what each stored attempt counts as; the rates and latency quantiles.
 */
import { Breakers, attemptsOfPayment, providerStats, quantile } from '../../shared/application/routing';
import { durationMs, statsTable } from '../../bin/cli/provider-stats';
import type { Payment, ProviderLink } from '../../shared/domain/payments/payment';

describe('Breakers', () => {
  const b = () => new Breakers({ openAfter: 3, pauseMs: 30_000 });

  it('opens after three no-answers in a row (an answer in between resets the count), per provider and kind', () => {
    const x = b();
    expect(x.record('efi', 'pix', false, 0)).toBeNull();
    expect(x.record('efi', 'pix', false, 1)).toBeNull();
    expect(x.record('efi', 'pix', true, 2)).toBeNull();
    expect(x.record('efi', 'pix', false, 3)).toBeNull();
    expect(x.record('efi', 'pix', false, 4)).toBeNull();
    expect(x.record('efi', 'pix', false, 5)).toEqual({ provider: 'efi', kind: 'pix', to: 'open' });
    expect(x.allow('efi', 'pix', 6)).toBe(false);
    expect(x.allow('efi', 'pix_payout', 6)).toBe(true);
    expect(x.allow('api_pix', 'pix', 6)).toBe(true);
  });

  it('after the pause one call probes: others wait; an answer closes it, a no-answer pauses it again', () => {
    const x = b();
    for (let t = 0; t < 3; t++) x.record('efi', 'pix', false, t);
    expect(x.state('efi', 'pix', 29_000)).toBe('open');
    expect(x.state('efi', 'pix', 30_002)).toBe('half_open');
    expect(x.allow('efi', 'pix', 30_002)).toBe(true);
    expect(x.allow('efi', 'pix', 30_003)).toBe(false);
    expect(x.record('efi', 'pix', false, 31_000)).toEqual({ provider: 'efi', kind: 'pix', to: 'open' }); // the probe failed
    expect(x.allow('efi', 'pix', 32_000)).toBe(false);
    expect(x.allow('efi', 'pix', 61_001)).toBe(true);
    expect(x.record('efi', 'pix', true, 61_500)).toEqual({ provider: 'efi', kind: 'pix', to: 'closed' });
    expect(x.allow('efi', 'pix', 61_501)).toBe(true);
  });

  it('a probe that never reports frees the next caller after a pause', () => {
    const x = b();
    for (let t = 0; t < 3; t++) x.record('efi', 'pix', false, t);
    expect(x.allow('efi', 'pix', 30_010)).toBe(true);
    expect(x.allow('efi', 'pix', 50_000)).toBe(false);
    expect(x.allow('efi', 'pix', 60_011)).toBe(true);
  });
});

describe('providers stats', () => {
  const payment = (over: Partial<Payment>): Payment => ({ payment_method: 'pix', status: 'pending', artefact: null, ...over }) as Payment;
  const link = (name: string, latency?: number): ProviderLink => ({
    name,
    reference: 'r',
    details: latency === undefined ? {} : { latency_ms: String(latency) },
  });

  it('each stored attempt counts once: ended ones by their code, the current one by its status', () => {
    const p = payment({
      status: 'success',
      provider: link('efi', 120),
      ended_attempts: [
        { provider: 'api_pix', outcome: 'failed', failure_code: 'provider_unreachable', at: 't', latency_ms: 3 },
        { provider: 'dlocal', outcome: 'skipped', failure_code: 'provider_paused', at: 't' },
      ],
    });
    expect(attemptsOfPayment(p)).toEqual([
      { provider: 'api_pix', kind: 'pix', result: 'no_answer', latencyMs: 3 },
      { provider: 'dlocal', kind: 'pix', result: 'skipped' },
      { provider: 'efi', kind: 'pix', result: 'approved', latencyMs: 120 },
    ]);
    expect(
      attemptsOfPayment(payment({ status: 'failed', failure_code: 'INSUFFICIENT_FUNDS', payment_method: 'card', provider: link('adyen') })),
    ).toEqual([{ provider: 'adyen', kind: 'card', result: 'declined' }]);
    expect(attemptsOfPayment(payment({ status: 'pending', artefact: { pix_code: 'x' }, provider: link('api_pix') }))[0]?.result).toBe(
      'approved',
    );
    expect(attemptsOfPayment(payment({ status: 'processing', provider: link('api_pix') }))[0]?.result).toBe('pending');
    expect(attemptsOfPayment(payment({ provider: null }))).toEqual([]);
  });

  it('rates over decided attempts, skipped ones not counted as calls, nearest-rank quantiles, the breaker as reported', () => {
    const rows = providerStats(
      [
        ...Array.from({ length: 8 }, (_, i) => ({ provider: 'efi', kind: 'pix', result: 'approved' as const, latencyMs: (i + 1) * 10 })),
        { provider: 'efi', kind: 'pix', result: 'declined' },
        { provider: 'efi', kind: 'pix', result: 'no_answer', latencyMs: 1500 },
        { provider: 'efi', kind: 'pix', result: 'pending' },
        { provider: 'efi', kind: 'pix', result: 'skipped' },
      ],
      [{ provider: 'efi', kind: 'pix', state: 'open' }],
    );
    expect(rows).toEqual([
      {
        provider: 'efi',
        kind: 'pix',
        attempts: 11,
        approved: 8,
        declined: 1,
        rejected: 0,
        no_answer: 1,
        pending: 1,
        skipped: 1,
        approval_rate: 0.8,
        no_answer_rate: 0.091,
        p50_ms: 50,
        p99_ms: 1500,
        breaker: 'open',
      },
    ]);
    expect(quantile([], 0.5)).toBeNull();
    expect(quantile([7], 0.99)).toBe(7);
    expect(statsTable(rows)[1]).toMatch(/^pix\s+efi\s+11\s+8\s+80\.0%\s+9\.1%\s+50 ms\s+1500 ms\s+open$/);
  });

  it('--since takes a number and a unit', () => {
    expect(durationMs('30m')).toBe(1_800_000);
    expect(durationMs('1h')).toBe(3_600_000);
    expect(durationMs('7d')).toBe(604_800_000);
    expect(durationMs('an hour')).toBeNull();
    expect(durationMs('1w')).toBeNull();
  });
});
