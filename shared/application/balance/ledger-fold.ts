/**
 * Credits into balances (issue 22): a payment's credit is committed as a ledger entry and a pending credit, and
 * these use cases add pending credits to the balance, each once. The stream worker folds what the table's stream
 * delivers, within about a second of the commit; the sweep folds what is still pending after a grace (a stream
 * record never handled: a worker that kept failing, a local stack restarted). Reads of the balance and debits it
 * refuses fold a merchant's own pending credits first (shared/adapters/dynamodb/ledger-fold.ts), so a merchant
 * never sees the delay.
 */
import type { LedgerFolder, PendingCredit } from './ledger-ports';

export interface LedgerFoldDeps {
  readonly folder: LedgerFolder;
}

/** The sweep's grace: a credit younger than this is the stream worker's to fold (its 30 s window, and retries). */
export const SWEEP_GRACE_SECONDS = 120;
/** Pending credits the sweep takes per round, and rounds per run (the rest waits for the next run). */
const SWEEP_BATCH = 500;
const SWEEP_ROUNDS = 20;

export async function foldCredits(deps: LedgerFoldDeps, credits: readonly PendingCredit[]): Promise<{ folded: number }> {
  return { folded: credits.length > 0 ? await deps.folder.fold(credits) : 0 };
}

export async function sweepPendingCredits(deps: LedgerFoldDeps, now: Date, graceSeconds = SWEEP_GRACE_SECONDS) {
  const before = new Date(now.getTime() - graceSeconds * 1000).toISOString();
  let folded = 0;
  let more = false;
  for (let round = 0; round < SWEEP_ROUNDS; round++) {
    const r = await deps.folder.sweep(before, SWEEP_BATCH);
    folded += r.folded;
    more = r.more;
    if (!more || r.folded === 0) break;
  }
  return { folded, left: more ? 1 : 0 };
}
