/** The route manifest: every entry points at a real handler, and routing matches API Gateway's. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { FALLBACK_ROUTE, matchPath, resolveRoute, ROUTES } from '../../shared/manifest/routes';
import { JOBS } from '../../shared/manifest/jobs';
import { queueDefinitions } from '../../shared/manifest/queues';

describe('route manifest', () => {
  const handlerFiles = [
    ...ROUTES.map((r) => r.handler),
    FALLBACK_ROUTE.handler,
    ...JOBS.map((j) => j.handler),
    ...queueDefinitions().flatMap((q) => (q.consumer ? [q.consumer.handler] : [])),
  ];

  it.each(handlerFiles)('%s exists and exports a handler', async (file) => {
    expect(existsSync(resolve(file))).toBe(true);
    const mod = await import(resolve(file));
    expect(typeof mod.handler).toBe('function');
  });

  it('has unique ids and unique method+path pairs', () => {
    expect(new Set(ROUTES.map((r) => r.id)).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size).toBe(ROUTES.length);
  });

  it('declares a scope for every API-key route and a rate limit for every non-public one', () => {
    for (const r of ROUTES) {
      if (r.auth === 'api_key') {
        expect('scope' in r && r.scope).toBeTruthy();
        expect(r.rateLimitPerMinute).toBeGreaterThan(0);
      }
    }
  });

  it('matches path templates and decodes parameters', () => {
    expect(matchPath('/api/v1/methods/{method_code}', '/api/v1/methods/svc-mt-1')).toEqual({ method_code: 'svc-mt-1' });
    expect(matchPath('/api/v1/methods/{method_code}', '/api/v1/methods/a%20b')).toEqual({ method_code: 'a b' });
    expect(matchPath('/api/v1/methods/{method_code}', '/api/v1/methods/a/b')).toBeNull();
    expect(matchPath('/api/v1/methods', '/api/v1/methods/')).toEqual({});
  });

  it('resolves a method and path to its route, or lists the allowed methods', () => {
    expect(resolveRoute('GET', '/api/v1/methods/svc-mt-1').match?.route.id).toBe('getMethod');
    expect(resolveRoute('get', '/api/v1/methods').match?.route.id).toBe('listMethods');
    expect(resolveRoute('POST', '/api/v1/methods')).toEqual({ match: null, allowed: ['GET'] });
    expect(resolveRoute('GET', '/nowhere')).toEqual({ match: null, allowed: [] });
  });
});
