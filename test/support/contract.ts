/**
 * Contract checks for every test: each HTTP answer a test receives, and each webhook a test receiver
 * gets, is validated against the committed openapi.json (status documented for the route, body valid
 * against its schema, documented headers present). Each checked (route, status) pair is recorded, and
 * the jest global teardown reports the coverage out of the documented pairs.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { resolveRoute } from '../../shared/manifest/routes';

type Json = Record<string, any>;

/** From the repository root, where jest, npm run proof and the benches run (this module is loaded as CJS and as ESM). */
export const OPENAPI_PATH = join(process.cwd(), 'openapi.json');
let doc: Json | undefined;
let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

export function openApiDocument(): Json {
  doc ??= JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as Json;
  return doc;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** A validator for the schema at a JSON pointer inside the document (refs to components resolve). */
export function validatorAt(...parts: string[]): ValidateFunction {
  const key = pointer(...parts);
  let v = compiled.get(key);
  if (!v) {
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema(openApiDocument(), 'openapi.json');
    }
    v = ajv.compile({ $ref: `openapi.json#/${key}` });
    compiled.set(key, v);
  }
  return v;
}

const describeErrors = (v: ValidateFunction) => (v.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message}`).join('; ');

function record(pair: string): void {
  const file = process.env.CONTRACT_COVERAGE_FILE;
  if (file) appendFileSync(file, `${pair}\n`);
}

export interface ObservedResponse {
  readonly method: string;
  /** Path with or without query string. */
  readonly path: string;
  readonly status: number;
  readonly headers: Headers;
  /** The body; undefined when it could not be read (a browser that navigated away first): the body is then not checked. */
  readonly text: string | undefined;
}

/** Throws when the answer is not what openapi.json documents for its route; returns the route id (null: no route). */
export function checkResponse(r: ObservedResponse): string | null {
  const path = r.path.split('?')[0] ?? r.path;
  const { match } = resolveRoute(r.method, path);
  if (!match) return null; // the 404/405 fallback: no documented route
  const method = r.method.toLowerCase();
  const op = openApiDocument().paths?.[match.route.path]?.[method];
  const where = `${r.method} ${match.route.path} -> ${r.status}`;
  if (!op) throw new Error(`Contract: ${where}: the route is not in openapi.json (run npm run openapi)`);
  const response = op.responses?.[String(r.status)];
  if (!response)
    throw new Error(`Contract: ${where} is not documented (documented: ${Object.keys(op.responses).join(', ')})\n${r.text?.slice(0, 500)}`);
  record(`${match.route.id} ${r.status}`);
  for (const name of Object.keys(response.headers ?? {})) {
    if (r.headers.get(name) === null) throw new Error(`Contract: ${where}: header ${name} is documented but missing`);
  }
  const content = response.content as Json | undefined;
  if (!content) return match.route.id;
  const type = (r.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  if (!content[type]) throw new Error(`Contract: ${where}: content-type ${type} is not documented (${Object.keys(content).join(', ')})`);
  if (type !== 'application/json' || r.text === undefined) return match.route.id;
  const v = validatorAt('paths', match.route.path, method, 'responses', String(r.status), 'content', type, 'schema');
  let body: unknown;
  try {
    body = JSON.parse(r.text);
  } catch {
    throw new Error(`Contract: ${where}: body is not JSON`);
  }
  if (!v(body)) throw new Error(`Contract: ${where}: ${describeErrors(v)}\n${r.text.slice(0, 800)}`);
  return match.route.id;
}

/** fetch() that also checks the answer against the contract (for tests that call the API without test-stack's request). */
export async function contractFetch(url: string, init?: RequestInit): Promise<Response> {
  const res = await fetch(url, init);
  if (res.redirected) return res; // the 3xx itself was followed away; only a redirect: 'manual' fetch sees it
  const text = await res.clone().text();
  const u = new URL(url);
  checkResponse({ method: init?.method ?? 'GET', path: u.pathname + u.search, status: res.status, headers: res.headers, text });
  return res;
}

/** Returns the violations of a received webhook (empty when it matches the webhooks section). */
export function webhookViolations(headers: Record<string, string | string[] | undefined>, rawBody: Buffer): string[] {
  let body: Json;
  try {
    body = JSON.parse(rawBody.toString('utf8')) as Json;
  } catch {
    return ['webhook body is not JSON'];
  }
  const type = String(body.event ?? '');
  const op = openApiDocument().webhooks?.[type]?.post;
  if (!op) return [`webhook ${type}: not in the webhooks section of openapi.json`];
  record(`webhook:${type} 200`);
  const problems: string[] = [];
  for (const p of (op.parameters ?? []) as Json[]) {
    if (p.in === 'header' && headers[String(p.name).toLowerCase()] === undefined)
      problems.push(`webhook ${type}: header ${p.name} missing`);
  }
  const v = validatorAt('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema');
  if (!v(body)) problems.push(`webhook ${type}: ${describeErrors(v)}`);
  return problems;
}

/** Every (route id, status) pair and webhook type the document names: the coverage denominator. */
export function documentedPairs(): string[] {
  const out: string[] = [];
  const d = openApiDocument();
  for (const item of Object.values(d.paths ?? {}) as Json[])
    for (const op of Object.values(item) as Json[])
      for (const status of Object.keys(op.responses ?? {})) out.push(`${op.operationId} ${status}`);
  for (const type of Object.keys(d.webhooks ?? {})) out.push(`webhook:${type} 200`);
  return out;
}
