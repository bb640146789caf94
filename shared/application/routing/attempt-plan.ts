/**
 * Which providers one payment tries, in order (DESIGN.md 9.2): the routing rule's order (the merchant's override, the
 * country's rule, `*`; a split draws the first) over the configured providers, else the first configured one alone;
 * each provider whose breaker is open is skipped (recorded as a skipped attempt).
 */
import type { CountryCode } from '../../domain/geo';
import type { MerchantRouting } from '../providers';
import type { Breakers } from './breaker';

export interface PlannedAttempt<R> {
  readonly name: string;
  readonly rail: R;
}

/**
 * The providers one payment may try, in order: the rule's order over the configured ones, else the first configured
 * alone. Breakers are asked as each is reached (attemptsOf), never ahead: asking makes a paused provider's probe.
 */
export function candidatesOf<R>(opts: {
  kind: string;
  country: CountryCode;
  /** The configured providers of the kind, in the document's fixed order. */
  rails: ReadonlyArray<PlannedAttempt<R>>;
  route?: (kind: string, country: CountryCode, merchant?: MerchantRouting) => string[] | null;
  merchantRouting?: MerchantRouting;
  /** Which rails may serve a payment no rule routes (default all): a provider that serves only when routed to is not one. */
  servesUnrouted?: (rail: R) => boolean;
}): Array<PlannedAttempt<R>> {
  const { rails } = opts;
  const order = opts.route?.(opts.kind, opts.country, opts.merchantRouting);
  const routed = order ? order.flatMap((name) => rails.filter((r) => r.name === name)) : [];
  if (routed.length > 0) return routed;
  // No rule (or none of its providers configured): the first configured provider serves, as before routing.
  const unrouted = opts.servesUnrouted;
  return (unrouted ? rails.filter((r) => unrouted(r.rail)) : rails).slice(0, 1);
}

/**
 * The next candidate to call from `from` on, with the ones skipped on the way (breaker open). When every remaining
 * candidate is paused and nothing was tried yet, the first is tried anyway: a payment is never refused only because
 * every breaker is open. Null when nothing is left to try.
 */
export function nextCandidate<R>(
  candidates: ReadonlyArray<PlannedAttempt<R>>,
  from: number,
  kind: string,
  breakers: Breakers,
  now: number,
  triedAny: boolean,
): { index: number; skipped: string[] } | null {
  const skipped: string[] = [];
  for (let i = from; i < candidates.length; i++) {
    const c = candidates[i]!;
    if (breakers.allow(c.name, kind, now)) return { index: i, skipped };
    skipped.push(c.name);
  }
  if (!triedAny && from < candidates.length) return { index: from, skipped: skipped.slice(0, 0) };
  return null;
}
