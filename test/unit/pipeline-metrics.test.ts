/**
 * Route metrics: a 5xx count with the route dimension, written only for a 5xx answer. Read back
 * from the shared Powertools Metrics instance's own EMF serialisation (publishing
 * is disabled in tests, storing is not). No AWS.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { AppError } from '../../shared/domain/errors';
import { errorMapper } from '../../shared/http/middleware/error-mapper';
import { requestContext } from '../../shared/http/middleware/request-context';
import { routeMetrics } from '../../shared/http/middleware/route-metrics';
import { jsonResult } from '../../shared/http/responses';
import { routeById } from '../../shared/manifest/routes';
import { metrics } from '../../shared/observability';
import type { HttpEvent, HttpResult, PipelineContext } from '../../shared/http/types';

type Request = middy.Request<HttpEvent, HttpResult, Error, PipelineContext>;
const route = routeById('getMethod');

interface Emf {
  _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

/** What logMetrics would publish now. */
const emitted = () => metrics.serializeMetrics() as unknown as Emf;

function request(response: HttpResult | undefined, startedAgoMs = 0): Request {
  const context = {
    route,
    requestId: 'req-1',
    startedAt: performance.now() - startedAgoMs,
    responseHeaders: {},
  } as unknown as PipelineContext;
  return { event: {} as HttpEvent, context, response, error: undefined, internal: {} };
}

const lambdaContext = () =>
  ({ awsRequestId: 'aws-1', functionName: 'fn', getRemainingTimeInMillis: () => 30_000 }) as unknown as PipelineContext & Context;

beforeEach(() => {
  metrics.clearMetrics();
  metrics.clearDimensions();
});

describe('routeMetrics middleware', () => {
  it('starts each test with nothing stored (publishing is disabled by test/support/env.ts)', () => {
    expect(process.env.POWERTOOLS_METRICS_DISABLED).toBe('true');
    expect(metrics.hasStoredMetrics()).toBe(false);
  });

  it("writes nothing for a 200: requests and latency are the route function's own Invocations and Duration (issue 22)", () => {
    routeMetrics().after!(request(jsonResult(200, {}), 25));
    expect(metrics.hasStoredMetrics()).toBe(false);
  });

  it("writes nothing for a 404 either (4xx is the HTTP API's own metric)", () => {
    routeMetrics().onError!(request(jsonResult(404, {})));
    expect(metrics.hasStoredMetrics()).toBe(false);
  });

  it('counts a 500 as 5xx=1 with the route dimension, and nothing else', () => {
    routeMetrics().onError!(request(jsonResult(500, {})));
    const out = emitted();
    const [def] = out._aws.CloudWatchMetrics;
    expect(def?.Dimensions).toContainEqual(expect.arrayContaining(['route']));
    expect(def?.Metrics).toEqual([{ Name: '5xx', Unit: 'Count' }]);
    expect(out).toMatchObject({ route: 'getMethod', '5xx': 1 });
    expect(out.Requests).toBeUndefined();
    expect(out.Latency).toBeUndefined();
  });

  it.each([
    [399, false],
    [400, false],
    [429, false],
    [499, false],
    [503, true],
  ])('status %i writes a 5xx: %s', (status, written) => {
    routeMetrics().after!(request({ statusCode: status }));
    expect(metrics.hasStoredMetrics()).toBe(written);
  });

  it('counts an unmapped error (no response) as a 5xx', () => {
    routeMetrics().onError!(request(undefined));
    expect(emitted()).toMatchObject({ '5xx': 1 });
  });
});

describe('routeMetrics in a middy chain (error mapping runs first on errors)', () => {
  const chain = (core: () => Promise<HttpResult>) =>
    middy<HttpEvent, HttpResult, Error, PipelineContext>().use(requestContext(route)).use(routeMetrics()).use(errorMapper()).handler(core);
  const event = { requestContext: { requestId: 'apigw-1' }, headers: {} } as unknown as HttpEvent;

  it('sees the mapped 404 of a thrown AppError', async () => {
    const res = await chain(async () => {
      throw new AppError('PAYMENT_METHOD_NOT_FOUND');
    })(event, lambdaContext());
    expect(res.statusCode).toBe(404);
    expect(metrics.hasStoredMetrics()).toBe(false);
  });

  it('sees the mapped 500 of a plain Error', async () => {
    const res = await chain(async () => {
      throw new Error('boom');
    })(event, lambdaContext());
    expect(res.statusCode).toBe(500);
    expect(emitted()).toMatchObject({ route: 'getMethod', '5xx': 1 });
  });

  it('records nothing for a success', async () => {
    await chain(async () => jsonResult(200, {}))(event, lambdaContext());
    expect(metrics.hasStoredMetrics()).toBe(false);
  });
});
