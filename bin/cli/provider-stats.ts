/**
 * `providers stats [--since 1h] [--kind card] [--json]`: per provider and kind, the attempts of the live payments
 * and payouts created in the window, their approval and no-answer rates, p50/p99 latency, and the breaker's last
 * reported state (DESIGN.md 9.2). Reads the stage's table (the local stack's, or --table/--region).
 */
import { documentClient } from '../../shared/adapters/aws-clients';
import { providerStatsRepository } from '../../shared/adapters/dynamodb/provider-stats.repository';
import { payoutKindOf, payoutRailOf } from '../../shared/application/payouts';
import { attemptsOfPayment, attemptsOfPayout, providerStats, type ProviderStatsRow } from '../../shared/application/routing';
import { tableName } from '../../shared/wiring/repositories';
import type { CliIo } from './io';

/** `30m`, `1h`, `7d` as milliseconds; null when it is not one of those. */
export function durationMs(text: string): number | null {
  const m = /^(\d{1,5})([smhd])$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
}

const pct = (r: number | null) => (r === null ? '-' : `${(r * 100).toFixed(1)}%`);
const ms = (n: number | null) => (n === null ? '-' : `${Math.round(n)} ms`);

export function statsTable(rows: readonly ProviderStatsRow[]): string[] {
  if (rows.length === 0) return ['No live attempts in the window.'];
  const header = ['kind', 'provider', 'attempts', 'approved', 'approval', 'no answer', 'p50', 'p99', 'breaker'];
  const body = rows.map((r) => [
    r.kind,
    r.provider,
    String(r.attempts),
    String(r.approved),
    pct(r.approval_rate),
    pct(r.no_answer_rate),
    ms(r.p50_ms),
    ms(r.p99_ms),
    r.breaker,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...body.map(line)];
}

export async function providersStats(o: { since?: string; kind?: string; json?: boolean; now?: Date }, io: CliIo): Promise<number> {
  const window = durationMs(o.since ?? '1h');
  if (window === null) {
    io.err('--since must be a number and a unit: 30m, 1h, 7d.');
    return 2;
  }
  const since = new Date((o.now ?? new Date()).getTime() - window).toISOString();
  const repo = providerStatsRepository(documentClient(), tableName);
  const [{ payments, payouts }, breakerStates] = await Promise.all([repo.liveSince(since), repo.breakers()]);
  const records = [
    ...payments.flatMap(attemptsOfPayment),
    ...payouts.flatMap((p) => attemptsOfPayout(p, payoutKindOf(payoutRailOf(p.method_code) ?? 'bankPayouts'))),
  ].filter((r) => !o.kind || r.kind === o.kind);
  const rows = providerStats(records, breakerStates);
  if (o.json) io.out(JSON.stringify({ since, kind: o.kind ?? null, providers: rows }, null, 2));
  else io.out([`Live attempts since ${since}${o.kind ? ` (${o.kind})` : ''}:`, ...statsTable(rows)].join('\n'));
  return 0;
}
