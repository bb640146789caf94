/** What the payout use cases depend on, and a payout's one conditional transition (shared by sandbox and live payouts). */
import { AppError } from '../../domain/errors';
import { canPayoutTransition, PAYOUT_EVENT, RETURNS_FUNDS, type Payout, type PayoutStatus } from '../../domain/payouts/payout';
import { payoutEvent } from '../../domain/payouts/payout-events';
import {
  commitAndPublish,
  type Answering,
  type Clock,
  type EventPublisher,
  type IdGenerator,
  type PayoutRails,
  type PayoutStore,
} from '../ports';
import type { AttemptObserver } from '../ports';
import type { ConnectorRegistry } from '../providers';

export interface PayoutDeps {
  readonly store: PayoutStore;
  readonly rails: PayoutRails;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  readonly checkNotificationUrl: (url: string, livemode: boolean) => string | null;
  readonly publisher: EventPublisher;
  /** Live payout providers (DESIGN.md section 8); absent: no live payout method is available. */
  readonly connectors?: ConnectorRegistry;
  /** The root of our public API (a live payout's provider is told where to notify under it). */
  readonly baseUrl?: () => string;
  /** Routing's observations (absent: not told). */
  readonly attempts?: AttemptObserver;
}

/**
 * One conditional transition with its event, counters and (failed/cancelled/refunded) credit-back; `answering`: a
 * keyed request's answer for the moved payout, in the same transaction.
 */
export async function transition(
  deps: PayoutDeps,
  p: Payout,
  to: PayoutStatus,
  patch: Partial<Payout> = {},
  answering?: Answering<Payout>,
): Promise<Payout> {
  if (!canPayoutTransition(p.status, to)) throw new AppError('PAYOUT_STATE_CONFLICT', `A ${p.status} payout cannot become ${to}.`);
  const at = deps.clock.now().toISOString();
  const next: Payout = { ...p, ...patch, status: to, updated_at: at };
  const type = PAYOUT_EVENT[to];
  await commitAndPublish(
    deps.publisher,
    deps.store.transition({
      payout: p,
      to,
      patch,
      events: type ? [payoutEvent(type, next, deps.ids.newId('evt_'), at)] : [],
      creditEntryId: RETURNS_FUNDS.has(to) ? deps.ids.newId('le_') : undefined,
      now: at,
      done: await answering?.(next),
    }),
  );
  return next;
}
