/**
 * The local API Gateway: turns each HTTP request into an HTTP API v2 event,
 * routes it by the manifest and invokes the same handler Lambda would run.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { FALLBACK_ROUTE, resolveRoute, ROUTES, type RouteDefinition } from '../../shared/manifest/routes';
import { httpApiEvent, lambdaContext, localTimeoutMs } from './lambda-events';
import { loadHandler, type LambdaHandler } from './handler-loader';

/** A route the server answers besides the manifest's (tests add their own this way). */
export interface ExtraRoute {
  readonly route: RouteDefinition;
  readonly handler: LambdaHandler;
}

export interface HttpServerOptions {
  /** A function that failed (threw, or ran past its timeout): the error and the route it served. */
  readonly onError?: (e: unknown, where?: string) => void;
  readonly extraRoutes?: readonly ExtraRoute[];
}

/** Lambda's synchronous payload limit. */
const MAX_REQUEST_BYTES = 6 * 1024 * 1024;
const DEFAULT_TIMEOUT_SECONDS = 29;

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Past the limit the rest is read and dropped, so the client (still sending) reads the 413 as API Gateway answers
    // it, not a reset connection.
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(c);
    });
    req.on('end', () => done(size > MAX_REQUEST_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', fail);
  });
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

function writeResult(res: ServerResponse, result: unknown) {
  // API Gateway's rules for payload v2: a structured result, or any other value as a JSON 200.
  const r = result as APIGatewayProxyStructuredResultV2 | undefined;
  if (!r || typeof r !== 'object' || typeof r.statusCode !== 'number') {
    return send(res, 200, typeof result === 'string' ? result : JSON.stringify(result ?? null));
  }
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(r.headers ?? {})) headers[k] = String(v);
  if (r.cookies?.length) headers['set-cookie'] = r.cookies;
  res.writeHead(r.statusCode, headers);
  res.end(r.body === undefined ? undefined : r.isBase64Encoded ? Buffer.from(r.body, 'base64') : r.body);
}

async function handle(req: IncomingMessage, res: ServerResponse, extra: readonly ExtraRoute[]) {
  const body = await readBody(req);
  if (body === null) return send(res, 413, JSON.stringify({ message: 'Request Entity Too Large' }));
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = (req.method ?? 'GET').toUpperCase();
  const { match } = resolveRoute(method, url.pathname, [...ROUTES, ...extra.map((e) => e.route)]);
  const routeKey = match ? `${match.route.method} ${match.route.path}` : '$default';
  const timeoutSeconds = match?.route.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const event = httpApiEvent(req, body, { routeKey, pathParameters: match?.pathParameters });
  const handler =
    extra.find((e) => e.route === match?.route)?.handler ?? (await loadHandler(match ? match.route.handler : FALLBACK_ROUTE.handler));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), localTimeoutMs(timeoutSeconds))));
  try {
    const result = await Promise.race([handler(event, lambdaContext(match?.route.id ?? FALLBACK_ROUTE.id, timeoutSeconds)), timeout]);
    if (result === 'timeout') return send(res, 503, JSON.stringify({ message: 'Service Unavailable' }));
    writeResult(res, result);
  } finally {
    clearTimeout(timer);
  }
}

/** The route a request was for, by its manifest id (never its path: a path can carry a callback's secret token). */
function routeIdOf(req: IncomingMessage, extra: readonly ExtraRoute[]): string {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const { match } = resolveRoute((req.method ?? 'GET').toUpperCase(), url.pathname, [...ROUTES, ...extra.map((e) => e.route)]);
  return `route ${match?.route.id ?? FALLBACK_ROUTE.id}`;
}

export function createHttpServer(options: HttpServerOptions = {}): Server {
  return createServer((req, res) => {
    handle(req, res, options.extraRoutes ?? []).catch((e: unknown) => {
      // What API Gateway answers when the function itself fails.
      options.onError?.(e, routeIdOf(req, options.extraRoutes ?? []));
      if (!res.headersSent) send(res, 500, JSON.stringify({ message: 'Internal Server Error' }));
      else res.end();
    });
  });
}

export function listen(server: Server, port: number, host = '127.0.0.1'): Promise<number> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const addr = server.address();
      done(typeof addr === 'object' && addr ? addr.port : port);
    });
  });
}
