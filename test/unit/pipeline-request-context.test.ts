/** The request-context middleware: request id, per-request context, and headers on every response. No AWS. */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { AppError } from '../../shared/domain/errors';
import { errorMapper } from '../../shared/http/middleware/error-mapper';
import { requestContext } from '../../shared/http/middleware/request-context';
import { jsonResult } from '../../shared/http/responses';
import { routeById } from '../../shared/manifest/routes';
import type { HttpEvent, HttpResult, PipelineContext } from '../../shared/http/types';

type Request = middy.Request<HttpEvent, HttpResult, Error, PipelineContext>;
const route = routeById('listMethods');

const lambdaContext = (): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'fn',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:fn',
  memoryLimitInMB: '256',
  awsRequestId: 'aws-req-1',
  logGroupName: '/aws/lambda/fn',
  logStreamName: 'stream',
  getRemainingTimeInMillis: () => 30_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

function event(requestId: string | undefined): HttpEvent {
  return {
    version: '2.0',
    routeKey: 'GET /api/v1/methods',
    rawPath: '/api/v1/methods',
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: { requestId, http: { method: 'GET', path: '/api/v1/methods' } },
  } as unknown as HttpEvent;
}

function request(ev: HttpEvent = event('apigw-req-1')): Request {
  return { event: ev, context: lambdaContext() as PipelineContext, response: undefined, error: undefined, internal: {} };
}

describe('requestContext middleware: before', () => {
  it('takes the request id from event.requestContext.requestId and initialises the context', () => {
    const req = request();
    const t0 = performance.now();
    requestContext(route).before!(req);
    const ctx = req.context;
    expect(ctx.requestId).toBe('apigw-req-1');
    expect(ctx.route).toBe(route);
    expect(ctx.input).toEqual({ query: {}, path: {}, body: undefined });
    expect(ctx.responseHeaders).toEqual({});
    expect(ctx.startedAt).toBeGreaterThanOrEqual(t0);
    expect(ctx.startedAt).toBeLessThanOrEqual(performance.now());
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
  ])('falls back to context.awsRequestId when the event request id is %s', (_w, id) => {
    const req = request(event(id));
    requestContext(route).before!(req);
    expect(req.context.requestId).toBe('aws-req-1');
  });

  it('falls back when the event has no requestContext at all', () => {
    const ev = { ...event('x'), requestContext: undefined } as unknown as HttpEvent;
    const req = request(ev);
    requestContext(route).before!(req);
    expect(req.context.requestId).toBe('aws-req-1');
  });

  it('gives each request fresh responseHeaders (no leak from a previous invocation)', () => {
    const mw = requestContext(route);
    const first = request();
    mw.before!(first);
    first.context.responseHeaders['x-ratelimit-limit'] = '100';
    const second = request();
    mw.before!(second);
    expect(second.context.responseHeaders).toEqual({});
  });
});

describe.each(['after', 'onError'] as const)('requestContext middleware: %s', (phase) => {
  const prepared = () => {
    const req = request();
    const mw = requestContext(route);
    mw.before!(req);
    req.context.responseHeaders['x-ratelimit-limit'] = '100';
    req.context.responseHeaders['x-ratelimit-remaining'] = '99';
    return { req, mw };
  };

  it('echoes x-request-id and merges context.responseHeaders into the response headers', () => {
    const { req, mw } = prepared();
    req.response = jsonResult(phase === 'after' ? 200 : 404, { ok: true }, { location: '/x' });
    mw[phase]!(req);
    expect(req.response.headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      location: '/x',
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '99',
      'x-request-id': 'apigw-req-1',
    });
    expect(req.response.body).toBe('{"ok":true}');
  });

  it('adds headers to a response that had none', () => {
    const { req, mw } = prepared();
    req.response = { statusCode: 204 };
    mw[phase]!(req);
    expect(req.response.headers).toEqual({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99', 'x-request-id': 'apigw-req-1' });
  });

  it('lets x-request-id win over a handler-supplied one', () => {
    const { req, mw } = prepared();
    req.response = jsonResult(200, {}, { 'x-request-id': 'spoofed' });
    mw[phase]!(req);
    expect(req.response.headers?.['x-request-id']).toBe('apigw-req-1');
  });

  it('does nothing when there is no response', () => {
    const { req, mw } = prepared();
    expect(() => mw[phase]!(req)).not.toThrow();
    expect(req.response).toBeUndefined();
  });
});

describe('requestContext in a middy chain', () => {
  const handler = (core: (event: HttpEvent, context: PipelineContext) => Promise<HttpResult>) =>
    middy<HttpEvent, HttpResult, Error, PipelineContext>().use(requestContext(route)).use(errorMapper()).handler(core);

  it('puts x-request-id and the collected headers on a successful response', async () => {
    const h = handler(async (_e, ctx) => {
      ctx.responseHeaders['x-ratelimit-limit'] = '300';
      return jsonResult(200, { requestId: ctx.requestId });
    });
    const res = await h(event('apigw-ok'), lambdaContext() as PipelineContext);
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({ 'x-request-id': 'apigw-ok', 'x-ratelimit-limit': '300' });
    expect(JSON.parse(res.body as string)).toEqual({ requestId: 'apigw-ok' });
  });

  it('puts them on the mapped error response too, with the AppError headers', async () => {
    const h = handler(async (_e, ctx) => {
      ctx.responseHeaders['x-ratelimit-limit'] = '300';
      throw new AppError('IDEMPOTENCY_IN_PROGRESS', undefined, { headers: { 'retry-after': '1' } });
    });
    const res = await h(event('apigw-err'), lambdaContext() as PipelineContext);
    expect(res.statusCode).toBe(409);
    expect(res.headers).toMatchObject({ 'x-request-id': 'apigw-err', 'x-ratelimit-limit': '300', 'retry-after': '1' });
    expect(JSON.parse(res.body as string)).toMatchObject({ error: { code: 'IDEMPOTENCY_IN_PROGRESS', request_id: 'apigw-err' } });
  });

  it('uses the awsRequestId in both the header and the 500 body when API Gateway gives none', async () => {
    const h = handler(async () => {
      throw new Error('kaboom');
    });
    const res = await h(event(undefined), lambdaContext() as PipelineContext);
    expect(res.statusCode).toBe(500);
    expect(res.headers?.['x-request-id']).toBe('aws-req-1');
    expect(res.body).toContain('aws-req-1');
    expect(res.body).not.toContain('kaboom');
  });
});
