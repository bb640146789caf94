/**
 * The route manifest: the single list of HTTP endpoints. CDK builds one API
 * route and one Lambda per entry; the local server builds its router from it.
 * Adding an endpoint is one entry in a routes.*.ts file plus one handler file.
 */
import { CORE_ROUTES } from './routes.core';
import { PAYIN_ROUTES } from './routes.payins';
import { MANDATE_ROUTES } from './routes.mandates';
import { DISPUTE_ROUTES } from './routes.disputes';
import { PAYOUT_ROUTES } from './routes.payouts';
import { PROVIDER_ROUTES } from './routes.providers';
import type { HttpMethod, RouteDefinition } from './route-types';

export * from './route-types';

export const ROUTES = [
  ...CORE_ROUTES,
  ...PAYIN_ROUTES,
  ...PAYOUT_ROUTES,
  ...MANDATE_ROUTES,
  ...DISPUTE_ROUTES,
  ...PROVIDER_ROUTES,
] as const;

export type RouteId = (typeof ROUTES)[number]['id'];

/**
 * Answers every request no route matches: 404 in the JSON error shape, or 405
 * with Allow when the path exists under another method. API Gateway's $default route.
 */
export const FALLBACK_ROUTE = {
  id: 'fallback',
  handler: 'functions/system/not-found.handler.ts',
  access: { table: 'none' },
} as const;

export function routeById(id: string): RouteDefinition {
  const route = (ROUTES as readonly RouteDefinition[]).find((r) => r.id === id);
  if (!route) throw new Error(`No route "${id}" in the manifest`);
  return route;
}

const templateCache = new Map<string, RegExp>();
function templateRegex(path: string): RegExp {
  let re = templateCache.get(path);
  if (!re) {
    const pattern = path
      .split('/')
      .map((seg) => (/^\{[a-z_]+\}$/i.test(seg) ? `(?<${seg.slice(1, -1)}>[^/]+)` : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    re = new RegExp(`^${pattern}/?$`);
    templateCache.set(path, re);
  }
  return re;
}

/** Matches a concrete path against a template; returns the decoded path parameters or null. */
export function matchPath(template: string, path: string): Record<string, string> | null {
  const m = templateRegex(template).exec(path);
  if (!m) return null;
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.groups ?? {})) {
    try {
      params[k] = decodeURIComponent(v);
    } catch {
      params[k] = v;
    }
  }
  return params;
}

export interface RouteMatch {
  readonly route: RouteDefinition;
  readonly pathParameters: Record<string, string>;
}

/**
 * Finds the route for a method and path. Literal segments beat parameters
 * (/api/v1/payout/methods/available before /api/v1/payout/{payout_id}), as in API Gateway.
 */
export function resolveRoute(
  method: string,
  path: string,
  routes: readonly RouteDefinition[] = ROUTES,
): { match: RouteMatch | null; allowed: HttpMethod[] } {
  const candidates = routes
    .map((route) => ({ route, params: matchPath(route.path, path) }))
    .filter((c): c is { route: RouteDefinition; params: Record<string, string> } => c.params !== null)
    .sort((a, b) => Object.keys(a.params).length - Object.keys(b.params).length);
  const allowed = [...new Set(candidates.map((c) => c.route.method))];
  const hit = candidates.find((c) => c.route.method === method.toUpperCase());
  return { match: hit ? { route: hit.route, pathParameters: hit.params } : null, allowed };
}
