/**
 * `merchants routing`: a merchant's routing override per method kind and country (issue 42, DESIGN.md section 9.2),
 * checked by the same rules as the providers document's `routing` block (ruleProblems), against the stage's
 * document when there is one. PIX pay-ins and PIX payouts follow it; cards are not routed yet.
 */
import {
  isRoutingCountry,
  isRoutingKind,
  ROUTING_KINDS,
  ruleProblems,
  type RoutingCountry,
  type RoutingKind,
} from '../../shared/adapters/providers/routing';
import { unusable, type ProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { COUNTRY_CODES } from '../../shared/domain/geo';
import type { Merchant, MerchantRouteRule } from '../../shared/domain/merchant';

export const ROUTING_NOT_APPLIED = "read before the providers document's rules";

export interface RoutingInput {
  readonly kind?: string;
  readonly country?: string;
  readonly providers?: string;
  readonly split?: string;
  readonly remove?: boolean;
}

/** What the command asks: show, set a rule, or remove one; or the problems, each naming its option. */
export type RoutingChange =
  | { readonly action: 'show' }
  | { readonly action: 'set'; readonly kind: RoutingKind; readonly country: RoutingCountry; readonly rule: MerchantRouteRule }
  | { readonly action: 'remove'; readonly kind: RoutingKind; readonly country: RoutingCountry };

const items = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The options as a change, or the problems with them. A rule's problems are ruleProblems' (the providers document's
 * checks, with `cfg`'s providers when given), named by option: `--split must sum to 100`, `--providers item 2 is ...`.
 */
export function routingChange(o: RoutingInput, cfg: ProvidersConfig | null): RoutingChange | { problems: string[] } {
  if (o.kind === undefined && o.country === undefined && o.providers === undefined && o.split === undefined && !o.remove)
    return { action: 'show' };
  const problems: string[] = [];
  if (o.kind === undefined) problems.push('--kind is required');
  else if (!isRoutingKind(o.kind)) problems.push(`--kind must be one of ${ROUTING_KINDS.join(', ')}`);
  const country = o.country ?? '*';
  if (!isRoutingCountry(country)) problems.push(`--country must be * or a country code (${COUNTRY_CODES.join(', ')})`);
  if (o.remove && (o.providers !== undefined || o.split !== undefined)) problems.push('--remove takes no --providers or --split');
  if (!o.remove && o.providers === undefined) problems.push('--providers is required (or --remove)');
  if (problems.length || !isRoutingKind(o.kind!) || !isRoutingCountry(country)) return { problems };
  const kind = o.kind;
  if (o.remove) return { action: 'remove', kind, country };
  const rule: MerchantRouteRule = {
    providers: items(o.providers!),
    ...(o.split !== undefined ? { split: items(o.split).map((n) => (/^-?\d+(\.\d+)?$/.test(n) ? Number(n) : NaN)) } : {}),
  };
  const found = ruleProblems('rule', kind, rule, cfg ? (p, k) => unusable(cfg, p, k) : undefined).map((p) =>
    p.replace(/^rule\.(providers|split)(?:\.(\d+))?/, (_, option: string, i?: string) => `--${option}${i ? ` item ${Number(i) + 1}` : ''}`),
  );
  return found.length ? { problems: found } : { action: 'set', kind, country, rule };
}

/** Keys in a stable order (a stored map's come back in any order), `*` before the countries. */
const sorted = <T>(o: Readonly<Record<string, T>>) =>
  Object.entries(o).sort(([a], [b]) => (a === '*' ? -1 : b === '*' ? 1 : a.localeCompare(b)));

/** The merchant's rules, one line each (kind, country, providers in order, split), by kind then country (`*` first). */
export function routingLines(m: Pick<Merchant, 'routing'>): string[] {
  const lines = sorted(m.routing ?? {}).flatMap(([kind, byCountry]) =>
    sorted(byCountry).map(
      ([country, r]) =>
        `  ${kind.padEnd(10)} ${country.padEnd(3)}  ${r.providers.join(', ')}${r.split ? `  split ${r.split.join('/')}` : ''}`,
    ),
  );
  return lines.length ? lines : ['  none (the providers document decides)'];
}
