/**
 * The one HTTP handler builder. Every endpoint is
 *   export const handler = httpHandler({ route: 'listMethods', query: schema, handler: async (req) => ... })
 * and gets the same middy chain, in DESIGN.md section 4's order: logger with
 * correlation id, metrics, request id, error mapping, authentication, rate limit,
 * body parsing and validation, then idempotency around the handler (routes the
 * manifest marks idempotent pass `idempotency: idempotent` from ./idempotent).
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type * as z from '../domain/zod';
import type { Principal } from '../application/access';
import type { Answering } from '../application/ports';
import { checkIdempotencyKey, deriveId, type IdempotencyScope } from './middleware/idempotency-key';
import type { IdempotentRunner } from './middleware/idempotency';
import { ids } from '../wiring';
import { REQUEST_WRITE_BUDGET_MS, withWriteDeadline } from '../adapters/dynamodb/contention';
import { logger, metrics } from '../observability';
import { routeById, type RouteDefinition, type RouteId } from '../manifest/routes';
import { AppError } from '../domain/errors';
import { authentication } from './middleware/authentication';
import { errorMapper } from './middleware/error-mapper';
import { rateLimit } from './middleware/rate-limit';
import { requestContext } from './middleware/request-context';
import { routeMetrics } from './middleware/route-metrics';
import { validation } from './middleware/validation';
import { jsonResult } from './responses';
import type { HttpEvent, HttpResponse, HttpResult, PipelineContext } from './types';

type Infer<S> = S extends z.core.$ZodType ? z.infer<S> : undefined;

export interface HttpRequest<Q, P, B> {
  readonly query: Q;
  readonly path: P;
  readonly body: B;
  readonly event: HttpEvent;
  readonly requestId: string;
  /** The authenticated merchant; throws when the route is not authenticated by API key. */
  readonly principal: Principal;
  /** X-Idempotency-Key, on idempotent routes that received one. */
  readonly idempotencyKey?: string;
  /**
   * Id for the object this request creates: derived from merchant + route + key
   * when the request carries X-Idempotency-Key (so a retry after a crash gets the
   * same id), random otherwise.
   */
  newId(prefix: string): string;
  /**
   * On a keyed request, how a use case's result becomes this request's recorded answer, written in the same
   * transaction as its effect (shared/application/ports/idempotency-ports.ts): pass the view the handler answers
   * with. Undefined without a key.
   */
  answering<T>(view: (result: T) => HttpResponse | Promise<HttpResponse>): Answering<T>;
}

export interface HttpHandlerOptions<QS, PS, BS> {
  readonly route: RouteId | RouteDefinition;
  readonly query?: QS;
  readonly path?: PS;
  readonly body?: BS;
  /** Required exactly on the routes the manifest marks idempotent: `idempotent` from shared/http/idempotent. */
  readonly idempotency?: IdempotentRunner<HttpResult>;
  readonly handler: (req: HttpRequest<Infer<QS>, Infer<PS>, Infer<BS>>) => Promise<HttpResponse>;
}

function toResult(res: HttpResponse): HttpResult {
  if (!res.raw) return jsonResult(res.status ?? 200, res.body, res.headers);
  const headers = { 'content-type': res.raw.contentType, ...(res.headers ?? {}) };
  return res.raw.bytes
    ? { statusCode: res.status ?? 200, headers, body: res.raw.bytes.toString('base64'), isBase64Encoded: true }
    : { statusCode: res.status ?? 200, headers, body: res.raw.text ?? '' };
}

function idempotencyScope(route: RouteDefinition, event: HttpEvent, context: PipelineContext): IdempotencyScope | undefined {
  const header = event.headers?.['x-idempotency-key'];
  if (!route.idempotent || header === undefined || !context.principal) return undefined;
  return {
    merchantId: context.principal.merchant.merchant_id,
    mode: context.principal.mode,
    routeId: route.id,
    key: checkIdempotencyKey(header),
  };
}

/** What a request leaves the function after its last write's turn: time to answer (and to delete its idempotency record). */
const ANSWER_RESERVE_MS = 1500;

/**
 * Until when this request's writes keep asking for their turn on a contended item (contention.ts): its budget
 * from the request's start, and never past the function's timeout less the time to answer.
 */
function writeDeadlineOf(context: PipelineContext): number {
  const elapsed = performance.now() - context.startedAt;
  const remaining = typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : Infinity;
  return Date.now() + Math.min(REQUEST_WRITE_BUDGET_MS - elapsed, remaining - ANSWER_RESERVE_MS);
}

export function httpHandler<
  QS extends z.core.$ZodType | undefined = undefined,
  PS extends z.core.$ZodType | undefined = undefined,
  BS extends z.core.$ZodType | undefined = undefined,
>(options: HttpHandlerOptions<QS, PS, BS>) {
  const route = typeof options.route === 'string' ? routeById(options.route) : options.route;
  const runIdempotently = options.idempotency;
  if (route.idempotent !== (runIdempotently !== undefined)) {
    throw new Error(`${route.id}: the manifest says idempotent=${route.idempotent}; pass idempotency exactly when it is true`);
  }

  const core = async (event: HttpEvent, context: PipelineContext): Promise<HttpResult> => {
    const scope = idempotencyScope(route, event, context);
    let answer: Answering<HttpResult>;
    const req: HttpRequest<Infer<QS>, Infer<PS>, Infer<BS>> = {
      query: context.input.query as Infer<QS>,
      path: context.input.path as Infer<PS>,
      body: context.input.body as Infer<BS>,
      event,
      requestId: context.requestId,
      get principal(): Principal {
        if (!context.principal) throw new AppError('UNAUTHORIZED');
        return context.principal;
      },
      idempotencyKey: scope?.key,
      newId: (prefix) => (scope ? deriveId(prefix, scope) : ids.newId(prefix)),
      answering: <T>(view: (result: T) => HttpResponse | Promise<HttpResponse>): Answering<T> => {
        const recorded = answer;
        return recorded ? async (result: T) => recorded(toResult(await view(result))) : undefined;
      },
    };
    const run = async () => toResult(await options.handler(req));
    return withWriteDeadline(writeDeadlineOf(context), () =>
      scope && runIdempotently
        ? runIdempotently(scope, context.input, context, (answering) => {
            answer = answering;
            return run();
          })
        : run(),
    );
  };

  const chain = middy<HttpEvent, HttpResult, Error, PipelineContext>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .use(requestContext(route))
    .use(routeMetrics())
    .use(errorMapper())
    .use(authentication())
    .use(rateLimit())
    .use(validation({ query: options.query, path: options.path, body: options.body }))
    .handler(core);
  // The schemas this route validates with: the published contract must use the same objects (test/unit/contract.test.ts).
  return Object.assign(chain, { requestSchemas: { query: options.query, path: options.path, body: options.body } });
}
