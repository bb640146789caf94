/**
 * A live payout provider's state callbacks (DESIGN.md section 8), whatever the rail: authenticated first (an
 * unguessable token in the path, or a signature over the raw body), parsed into the orders they name, then each
 * order read back from the provider and what the provider holds applied (the callback's claim alone changes
 * nothing). A duplicate, late or out-of-order callback is harmless: a state the payout is already past moves
 * nothing, and a state the provider does not show yet is answered 502 so the provider sends it again.
 */
import { AppError } from '../../domain/errors';
import {
  type NotificationHeaders,
  type PayoutConnector,
  type PayoutStateItem,
  type ProviderOrderState,
  type Connectors,
  ProviderUnavailable,
} from '../providers';
import { WriteConflict } from '../ports';
import type { PayoutDeps } from './payout-transition';
import { applyOrderState, connectorOfPayout, type LiveOutcome, type PayoutRail } from './payouts-live';

/**
 * Whether a claimed state is further along than what the provider holds: anything final while the order is in
 * flight or unknown, a return while it is only settled. A claim the provider's state already passed (a late
 * or duplicate change) or contradicts (a cancellation of a settled order) is not ahead: it changes nothing.
 * A claim that ends nothing (on hold, sent to the bank) is never ahead.
 */
function ahead(claimed: PayoutStateItem['claimed'], state: ProviderOrderState): boolean {
  if (claimed === 'pending') return false;
  if (state.kind === 'pending' || state.kind === 'not_found') return true;
  return claimed === 'returned' && state.kind === 'settled';
}

export type CallbackOutcome = LiveOutcome | 'unknown' | 'unconfirmed' | 'mismatch';

export interface StateCallbackResult {
  /** The first item's outcome (the only one for a provider that sends one order per callback). */
  readonly outcome: CallbackOutcome;
  readonly outcomes: readonly CallbackOutcome[];
}

/**
 * A cancellation the read-back confirms, with the failure code the (authenticated) callback explained: a provider
 * whose read-back names no reason (Efí's NAO_REALIZADO) says why only in its callback.
 */
function withHint(state: ProviderOrderState, item: PayoutStateItem): ProviderOrderState {
  if (state.kind !== 'cancelled' || !item.reasonHint) return state;
  return { ...state, failureCode: item.reasonHint };
}

/**
 * One order a callback names: found by what the provider itself keeps (its id of our order, kept from the
 * registration's answer or a read-back), else by our reference when the callback carries it; read back; applied.
 */
async function applyStateItem(
  deps: PayoutDeps,
  route: PayoutConnector,
  item: PayoutStateItem,
  payoutIdOf: (reference: string) => string | null,
  connectors: Connectors | null | undefined,
): Promise<CallbackOutcome> {
  let connector = route;
  const byOrder = await deps.store.payoutOfOrder(connector.provider.name, item.orderId);
  const payoutId = byOrder ?? (item.reference ? payoutIdOf(item.reference) : null);
  for (let attempt = 0; ; attempt++) {
    const p = payoutId ? await deps.store.get(payoutId) : null;
    if (!p || !p.livemode || !p.provider || p.provider.name !== route.provider.name) return 'unknown';
    // One provider's route serves each of its rails (dLocal's notifications: bank and PIX payouts): the payout's own.
    connector = connectorOfPayout(connectors, p) ?? route;
    const reference = p.provider.reference;
    // A reference naming another order than the one this id belongs to: nothing moves.
    if (item.reference && item.reference !== reference) return byOrder ? 'mismatch' : 'unknown';
    // The provider's id of our order, kept from its registration: a change naming another order moves nothing.
    const known = p.provider.details.order_id;
    if (known && known !== item.orderId) return 'mismatch';
    let state: ProviderOrderState;
    try {
      state = await connector.get(reference);
    } catch (e) {
      if (e instanceof ProviderUnavailable)
        throw new AppError('PROVIDER_UNAVAILABLE', 'The order could not be read back from the provider; send the change again.');
      throw e;
    }
    // A state the provider does not show yet (its query lags its callback, or the claim is forged): nothing is
    // applied and the provider is asked to send it again, so a real change is never dropped.
    if (ahead(item.claimed, state))
      throw new AppError('PROVIDER_UNAVAILABLE', 'The provider does not show this order state yet; send the change again.');
    // Registered without its answer (the id was never kept): the order read back names its id.
    if (!known && state.kind !== 'not_found' && state.orderId && state.orderId !== item.orderId) return 'mismatch';
    try {
      const outcome = await applyOrderState(deps, p, withHint(state, item), connector);
      return state.kind === item.claimed || item.claimed === 'pending' ? outcome : 'unconfirmed';
    } catch (e) {
      // A racing writer (the resume job, a duplicate callback): read again once; its state stands.
      if (!(e instanceof WriteConflict) || attempt >= 1) throw e;
    }
  }
}

/** Every item applied; one the provider could not confirm yet makes the whole callback a 502 (it is sent again). */
async function applyAll(
  deps: PayoutDeps,
  connector: PayoutConnector,
  items: readonly PayoutStateItem[],
  payoutIdOf: (reference: string) => string | null,
  connectors: Connectors | null | undefined,
): Promise<StateCallbackResult> {
  const outcomes: CallbackOutcome[] = [];
  let retry: unknown = null;
  for (const item of items) {
    try {
      outcomes.push(await applyStateItem(deps, connector, item, payoutIdOf, connectors));
    } catch (e) {
      if (!(e instanceof AppError) || e.code !== 'PROVIDER_UNAVAILABLE') throw e;
      retry ??= e;
    }
  }
  if (retry) throw retry;
  return { outcome: outcomes[0] ?? 'unknown', outcomes };
}

/** The rails whose provider authenticates its callbacks by a token in the path, and where their parser is. */
const TOKEN_CALLBACKS = { speiPayouts: 'speiPayoutCallbacks', pixPayouts: 'pixPayoutCallbacks' } as const;

/**
 * A token-authenticated order-state callback (SPEI, PIX): 404 for a wrong token (nothing read), 400 for a body
 * that is not the provider's shape; then each order it names is read back and what the provider holds applied.
 * The provider not answering the read-back, or not showing the claimed state yet, is a 502 (sent again).
 */
export async function receivePayoutStateCallback(
  deps: PayoutDeps,
  token: string,
  readBody: () => unknown,
  rail: keyof typeof TOKEN_CALLBACKS = 'speiPayouts',
): Promise<StateCallbackResult> {
  const connectors = await deps.connectors?.forMode(true);
  const callbacks = connectors?.[TOKEN_CALLBACKS[rail]];
  const connector = connectors?.[rail];
  if (!callbacks || !connector || !callbacks.tokenMatches(token)) throw new AppError('NOT_FOUND');
  const body = readBody();
  const items = callbacks.parseAll ? callbacks.parseAll(body) : [callbacks.parseState(body)].filter((i) => i !== null);
  if (!items || (!callbacks.parseAll && items.length === 0))
    throw new AppError('VALIDATION_ERROR', "The callback body is not the provider's order-state shape.");
  return applyAll(deps, connector, items, (r) => callbacks.payoutIdOf(r), connectors);
}

/**
 * A signed payout notification (bank-transfer payouts): the signature checked over the raw body before anything
 * of it is read (a forged one is 401 and moves nothing), 400 for a body that is not the provider's shape, then the
 * payout read back and what the provider holds applied.
 */
export async function receiveSignedPayoutNotification(
  deps: PayoutDeps,
  headers: NotificationHeaders,
  rawBody: string,
  rail: Exclude<PayoutRail, keyof typeof TOKEN_CALLBACKS> = 'bankPayouts',
): Promise<StateCallbackResult> {
  const connectors = await deps.connectors?.forMode(true);
  const notifications = rail === 'bankPayouts' ? connectors?.bankPayoutNotifications : undefined;
  const connector = connectors?.[rail];
  if (!notifications || !connector) throw new AppError('NOT_FOUND');
  const parsed = notifications.parse(headers, rawBody);
  if (parsed && 'forged' in parsed) throw new AppError('UNAUTHORIZED', 'The notification signature does not verify.');
  if (!parsed) throw new AppError('VALIDATION_ERROR', "The notification body is not the provider's payout shape.");
  return applyAll(deps, connector, [parsed.item], (r) => notifications.payoutIdOf(r), connectors);
}

/** A callback's items counted as the provider-callback metrics count them (accepted, rejected, unknown). */
export function callbackCounts(outcomes: readonly CallbackOutcome[]): { Accepted: number; Rejected: number; Unknown: number } {
  const count = (f: (o: CallbackOutcome) => boolean) => outcomes.filter(f).length;
  return {
    Accepted: count((o) => o !== 'unknown' && o !== 'unconfirmed' && o !== 'mismatch'),
    Rejected: count((o) => o === 'unconfirmed' || o === 'mismatch'),
    Unknown: count((o) => o === 'unknown'),
  };
}
