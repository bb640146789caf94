/**
 * Routing between providers (issue 42, DESIGN.md section 9.2): which providers may serve a method kind, the
 * checks a routing rule must pass, and the pure choice of the ordered providers to try for one payment.
 * Pure (no AWS, no call): the providers document's block names and which kinds each can serve, as data; it lives
 * beside the document's schema, not in shared/domain, which names no provider.
 *
 * The providers document's `routing` block is validated at start; routeFor orders the providers of each routed payment.
 */
import { COUNTRY_CODES, type CountryCode } from '../../domain/geo';

/** The method kinds two providers can serve, so a routing rule can name them. */
export const ROUTING_KINDS = ['card', 'pix', 'pix_payout'] as const;
export type RoutingKind = (typeof ROUTING_KINDS)[number];

/** Every provider block of the providers document (its names are the ones a rule lists). */
export const ROUTING_PROVIDERS = ['adyen', 'dlocal', 'api_pix', 'efi', 'stp', 'binance_pay'] as const;
export type RoutingProvider = (typeof ROUTING_PROVIDERS)[number];

/** Who can serve each kind: data, not branches. A rule may list only these for its kind. */
export const PROVIDERS_BY_KIND: Readonly<Record<RoutingKind, readonly RoutingProvider[]>> = {
  card: ['adyen', 'dlocal'],
  pix: ['api_pix', 'efi', 'dlocal'],
  pix_payout: ['efi', 'dlocal'],
};

/** A rule's country key: one country, or `*` for every country without a rule of its own. */
export type RoutingCountry = CountryCode | '*';

/** One rule: the providers in the order to try, and optionally the weights (percent) of which one goes first. */
export interface RouteRule {
  readonly providers: readonly string[];
  readonly split?: readonly number[];
}

/** The document's `routing` block, once validated: per kind, per country (or `*`), one rule. */
export type Routing = Readonly<Partial<Record<RoutingKind, Readonly<Partial<Record<RoutingCountry, RouteRule>>>>>>;

export const isRoutingKind = (v: string): v is RoutingKind => (ROUTING_KINDS as readonly string[]).includes(v);
export const isRoutingProvider = (v: string): v is RoutingProvider => (ROUTING_PROVIDERS as readonly string[]).includes(v);
export const isRoutingCountry = (v: string): v is RoutingCountry => v === '*' || (COUNTRY_CODES as readonly string[]).includes(v);

/**
 * What is wrong with one rule for `kind`, each problem naming the field under `field` (e.g. `routing.card.BRA`).
 * A provider that is not a block name is not echoed (the list could hold anything). `usable` says why a provider
 * that can serve the kind cannot be used here (not configured in the document, a block missing a part), or null.
 */
export function ruleProblems(
  field: string,
  kind: RoutingKind,
  rule: RouteRule,
  usable: (provider: RoutingProvider, kind: RoutingKind) => string | null = () => null,
): string[] {
  const problems: string[] = [];
  const serving = PROVIDERS_BY_KIND[kind];
  if (rule.providers.length === 0) problems.push(`${field}.providers must list at least one provider`);
  const seen = new Set<string>();
  rule.providers.forEach((p, i) => {
    const at = `${field}.providers.${i}`;
    if (!isRoutingProvider(p)) problems.push(`${at} must be a provider block name (${ROUTING_PROVIDERS.join(', ')})`);
    else if (!serving.includes(p)) problems.push(`${at} is ${p}, which cannot serve ${kind} (only ${serving.join(', ')})`);
    else if (seen.has(p)) problems.push(`${at} repeats ${p}`);
    else {
      const why = usable(p, kind);
      if (why) problems.push(`${at} is ${p}, ${why}`);
    }
    seen.add(p);
  });
  if (rule.split) {
    const split = rule.split;
    if (split.length !== rule.providers.length)
      problems.push(`${field}.split must have one entry per provider (${rule.providers.length}), not ${split.length}`);
    const bad = split.flatMap((n, i) => (Number.isInteger(n) && n >= 0 ? [] : [`${field}.split.${i} must be a whole number, 0 or more`]));
    problems.push(...bad);
    if (!bad.length && split.reduce((a, b) => a + b, 0) !== 100) problems.push(`${field}.split must sum to 100`);
  }
  return problems;
}

/**
 * What is wrong with a whole `routing` block: an unknown kind, a country key that is neither `*` nor one of
 * COUNTRY_CODES, and each rule's problems (ruleProblems).
 */
export function routingProblems(
  routing: Readonly<Record<string, Readonly<Record<string, RouteRule>>>>,
  usable?: (provider: RoutingProvider, kind: RoutingKind) => string | null,
): string[] {
  return Object.entries(routing).flatMap(([kind, byCountry]) => {
    if (!isRoutingKind(kind)) return [`routing.${kind} is not a kind routing serves (${ROUTING_KINDS.join(', ')})`];
    return Object.entries(byCountry).flatMap(([country, rule]) =>
      isRoutingCountry(country)
        ? ruleProblems(`routing.${kind}.${country}`, kind, rule, usable)
        : [`routing.${kind}.${country} must be * or a country code (${COUNTRY_CODES.join(', ')})`],
    );
  });
}

/**
 * The ordered providers to try for one payment of `kind` in `country`, or null when no rule applies (the caller
 * keeps today's fixed order). The merchant's override wins over the country's rule, which wins over `*`; a rule
 * that lists no provider does not apply. Without a split the rule's order is the answer; with one, the first
 * provider is drawn by weight (`random()` in [0, 1)) and the others follow in the rule's order. Rules are
 * validated before they get here (at start, or when a merchant's override is written).
 */
export function routeFor(
  routing: Routing | undefined,
  kind: RoutingKind,
  country: CountryCode,
  opts: { merchant?: RouteRule; random: () => number },
): string[] | null {
  const byCountry = routing?.[kind];
  const rule = [opts.merchant, byCountry?.[country], byCountry?.['*']].find((r) => r !== undefined && r.providers.length > 0);
  if (!rule) return null;
  const providers = [...rule.providers];
  if (!rule.split) return providers;
  const first = drawn(rule.split, opts.random());
  if (first === undefined || first >= providers.length) return providers;
  return [providers[first]!, ...providers.filter((_, i) => i !== first)];
}

/** The index whose weight interval holds `r` (r in [0, 1) scaled to the weights' total); undefined if no weight is positive. */
function drawn(split: readonly number[], r: number): number | undefined {
  const total = split.reduce((a, b) => a + b, 0);
  if (!(total > 0)) return undefined;
  const at = r * total;
  let upTo = 0;
  let last: number | undefined;
  for (let i = 0; i < split.length; i++) {
    if (!(split[i]! > 0)) continue;
    upTo += split[i]!;
    last = i;
    if (at < upTo) return i;
  }
  // r * total rounded up to the total (r just under 1): the last positive weight.
  return last;
}
