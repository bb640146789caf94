/**
 * The published contract: openapi.json is what the code generates (not stale), is valid OpenAPI 3.1
 * (a maintained validator), every example in it is valid against its own schema, and the request
 * schemas it publishes are the very objects each handler validates with.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTES, type RouteId } from '../../shared/manifest/routes';
import { ROUTE_CONTRACTS } from '../../shared/contract/routes.contract';
import { renderArtefacts } from '../../shared/contract/artefacts';
import { ERRORS, type ErrorCode } from '../../shared/domain/errors';
import { routeErrorCodes } from '../../shared/contract/errors.contract';
import { openApiDocument, validatorAt } from '../support/contract';

const root = join(__dirname, '..', '..');

describe('openapi.json', () => {
  it('is what npm run openapi generates, and so is the error-code table of docs/errors.md', () => {
    for (const { file, content } of renderArtefacts(readFileSync(join(root, 'docs/errors.md'), 'utf8'))) {
      const committed = readFileSync(join(root, file), 'utf8');
      if (committed !== content) throw new Error(`${file} is stale: run npm run openapi and commit it`);
    }
  });

  it('the SDK types (sdk/src/openapi.generated.ts) are what openapi-typescript generates from it', () => {
    // In a child process: jest cannot load the generator's ESM dependencies.
    const generate = (doc: string) =>
      execFileSync(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'scripts/sdk-types.ts')], {
        input: doc,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
    const document = readFileSync(join(root, 'openapi.json'), 'utf8');
    const generated = generate(document);
    if (readFileSync(join(root, 'sdk/src/openapi.generated.ts'), 'utf8') !== generated) {
      throw new Error('sdk/src/openapi.generated.ts is stale: run npm run openapi and commit it');
    }
    // A change to the contract changes them: the check can fail.
    const changed = JSON.parse(document);
    changed.paths['/api/v1/balance'].get.summary = 'Changed';
    expect(generate(JSON.stringify(changed))).not.toBe(generated);
  });

  it('validates as OpenAPI 3.1 (@seriousme/openapi-schema-validator)', () => {
    const cli = join(root, 'node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
    const out = execFileSync(process.execPath, [cli, join(root, 'openapi.json')], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ valid: true });
    expect(openApiDocument().openapi).toBe('3.1.0');
  });

  it('has an example for every parameter, request and response body, each valid against its schema', () => {
    const doc = openApiDocument();
    let checked = 0;
    const bad: string[] = [];
    const check = (where: string[], media: Record<string, any>) => {
      for (const [type, m] of Object.entries(media)) {
        if (type !== 'application/json') continue;
        expect({ where: where.join(' '), hasExample: 'example' in m }).toEqual({ where: where.join(' '), hasExample: true });
        const v = validatorAt(...where, type, 'schema');
        if (!v(m.example)) bad.push(`${where.join(' ')}: ${(v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join(', ')}`);
        checked++;
      }
    };
    for (const [path, item] of Object.entries<any>(doc.paths))
      for (const [method, op] of Object.entries<any>(item)) {
        if (op.requestBody) check(['paths', path, method, 'requestBody', 'content'], op.requestBody.content);
        (op.parameters ?? []).forEach((p: any, i: number) => {
          const v = validatorAt('paths', path, method, 'parameters', String(i), 'schema');
          if (!v(p.example))
            bad.push(`${method} ${path} parameter ${p.name}: example ${JSON.stringify(p.example)} ${v.errors?.[0]?.message}`);
          checked++;
        });
        for (const [status, r] of Object.entries<any>(op.responses))
          if (r.content) check(['paths', path, method, 'responses', status, 'content'], r.content);
      }
    for (const [type, item] of Object.entries<any>(doc.webhooks))
      check(['webhooks', type, 'post', 'requestBody', 'content'], item.post.requestBody.content);
    expect(bad).toEqual([]);
    expect(checked).toBeGreaterThan(200);
  });

  it('documents every route of the manifest with its auth, rate limit and idempotency', () => {
    const doc = openApiDocument();
    for (const route of ROUTES) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(op).toMatchObject({
        operationId: route.id,
        'x-auth': route.auth,
        'x-rate-limit-per-minute': route.rateLimitPerMinute,
        'x-idempotent': route.idempotent,
      });
      expect(op.security).toEqual(route.auth === 'api_key' ? [{ apiKey: [] }, { bearer: [] }] : []);
      const headerParams = (op.parameters ?? []).filter((p: any) => p.in === 'header').map((p: any) => p.name);
      expect(headerParams).toEqual(route.idempotent ? ['X-Idempotency-Key'] : []);
    }
  });

  it('names each route’s error codes under their HTTP status, and every code of the error table is reachable somewhere', () => {
    const doc = openApiDocument();
    const used = new Set<ErrorCode>();
    for (const route of ROUTES) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      for (const code of routeErrorCodes(route, ROUTE_CONTRACTS[route.id as RouteId])) {
        used.add(code);
        expect(Object.keys(op.responses)).toContain(String(ERRORS[code].status));
        expect(JSON.stringify(op.responses[String(ERRORS[code].status)])).toContain(route.family === 'direct' ? ERRORS[code].direct : code);
      }
    }
    // NOT_FOUND and METHOD_NOT_ALLOWED are the fallback's (no route); every other code belongs to a route.
    const orphans = (Object.keys(ERRORS) as ErrorCode[]).filter((c) => !used.has(c) && c !== 'NOT_FOUND' && c !== 'METHOD_NOT_ALLOWED');
    expect(orphans).toEqual([]);
  });
});

describe('handlers and the contract', () => {
  it.each(ROUTES.map((r) => [r.id, r.handler] as const))('%s validates with the schemas the contract publishes', async (id, file) => {
    const mod = (await import(join(root, file))) as { handler: { requestSchemas: Record<string, unknown> } };
    const published = (ROUTE_CONTRACTS[id as RouteId] as { request?: Record<string, unknown> }).request ?? {};
    for (const part of ['query', 'path', 'body'] as const) expect(mod.handler.requestSchemas[part]).toBe(published[part]);
  });
});
