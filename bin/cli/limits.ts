/** `merchants limits`: per-merchant, per-route rate limits (requests per minute), as ops raise or lower them. */
import { ROUTES } from '../../shared/manifest/routes';
import type { RouteDefinition } from '../../shared/manifest/route-types';
import { rateLimitFor, type Merchant } from '../../shared/domain/merchant';

/** Routes a merchant's API key is limited on: the ones an override can apply to. */
const LIMITED = (ROUTES as readonly RouteDefinition[]).filter((r) => r.auth === 'api_key' && r.rateLimitPerMinute !== null);

/** Parses `--route createPayout=600` (set) and `--route createPayout=default` (back to the SPEC value). */
export function parseLimitChanges(specs: readonly string[]): Record<string, number | null> {
  const changes: Record<string, number | null> = {};
  for (const spec of specs) {
    const m = /^([A-Za-z]+)=(\d+|default)$/.exec(spec);
    if (!m) throw new Error(`--route ${spec}: expected ROUTE_ID=N or ROUTE_ID=default`);
    const [, id, value] = m as unknown as [string, string, string];
    if (!LIMITED.some((r) => r.id === id)) throw new Error(`--route ${spec}: ${id} is not a rate-limited API-key route`);
    const n = value === 'default' ? null : Number(value);
    if (n !== null && (n < 1 || n > 1_000_000)) throw new Error(`--route ${spec}: the limit must be 1 to 1000000 per minute`);
    changes[id] = n;
  }
  return changes;
}

/** Every limited route with the merchant's effective limit, marking overrides. */
export function effectiveLimits(m: Pick<Merchant, 'rate_limits'>) {
  return LIMITED.map((r) => ({
    route: r.id,
    per_minute: rateLimitFor(m, r.id, r.rateLimitPerMinute) as number,
    default: r.rateLimitPerMinute as number,
    overridden: m.rate_limits?.[r.id] !== undefined,
  }));
}

export const limitsTable = (rows: ReturnType<typeof effectiveLimits>) =>
  rows
    .map((r) => `${r.route.padEnd(28)} ${String(r.per_minute).padStart(8)}/min${r.overridden ? `  (default ${r.default})` : ''}`)
    .join('\n');
