/** Helpers of the live proofs that read no engine. */
import type { Item } from './stack-process';

/**
 * The live balances against their ledger, per currency: each balance item plus the credits still to fold into it
 * (pending_credit items) equals the sum of its ledger entries at every moment, and is never negative. The balance
 * item alone lags by up to the fold's window (30 s on the stream, 120 s by the sweep): a credit committed in a run's
 * last seconds is still pending when it is read, so comparing the item alone with the ledger fails by chance (it
 * did in CI: balance 716038, one credit of 5481 to fold, ledger 721519).
 */
export function balanceViolations(items: readonly Item[], label: string): string[] {
  const v: string[] = [];
  const live = (entity: string) => items.filter((i) => i.entity === entity && i.mode === 'live');
  const sumOf = (entity: string, currency: string) =>
    live(entity)
      .filter((i) => i.currency === currency)
      .reduce((s, i) => s + Number(i.amount_minor), 0);
  for (const b of live('balance')) {
    const [ledger, unfolded] = [sumOf('ledger_entry', b.currency), sumOf('pending_credit', b.currency)];
    if (Number(b.available_minor) + unfolded !== ledger)
      v.push(`${label}: ${b.currency} balance ${b.available_minor} + ${unfolded} to fold != ledger ${ledger}`);
    if (Number(b.available_minor) < 0) v.push(`${label}: negative ${b.currency} balance ${b.available_minor}`);
  }
  return v;
}

/** A wait line's summary of what is still outstanding, by check: `3 outstanding (a 1, d 2)`. */
export function outstandingSummary(violations: readonly string[]): string {
  const byCheck = new Map<string, number>();
  for (const v of violations) byCheck.set(v.split(':')[0]!, (byCheck.get(v.split(':')[0]!) ?? 0) + 1);
  const parts = [...byCheck].sort(([a], [b]) => a.localeCompare(b)).map(([check, n]) => `${check} ${n}`);
  return `${violations.length} outstanding${parts.length ? ` (${parts.join(', ')})` : ''}`;
}
