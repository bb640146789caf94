/**
 * The local stack enforces each function's timeout as Lambda does (a route past it answers 503, a worker's context
 * runs out), scaled by LOCAL_TIMEOUT_SCALE, which the jest run sets (test/support/env.ts) and `npm start` does not.
 */
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../../bin/local/http-server';
import { lambdaContext, localTimeoutMs } from '../../bin/local/lambda-events';
import type { RouteDefinition } from '../../shared/manifest/route-types';

const scaled = <T>(scale: string | undefined, run: () => T): T => {
  const saved = process.env.LOCAL_TIMEOUT_SCALE;
  if (scale === undefined) delete process.env.LOCAL_TIMEOUT_SCALE;
  else process.env.LOCAL_TIMEOUT_SCALE = scale;
  try {
    return run();
  } finally {
    if (saved === undefined) delete process.env.LOCAL_TIMEOUT_SCALE;
    else process.env.LOCAL_TIMEOUT_SCALE = saved;
  }
};

test.each([
  [undefined, 30_000],
  ['1', 30_000],
  ['4', 120_000],
  ['0.5', 30_000],
  ['many', 30_000],
])('LOCAL_TIMEOUT_SCALE=%s: a 30 s function gets %i ms', (scale, ms) => {
  expect(scaled(scale, () => localTimeoutMs(30))).toBe(ms);
  const left = scaled(scale, () => lambdaContext('f', 30)).getRemainingTimeInMillis();
  expect(left).toBeLessThanOrEqual(ms);
  expect(left).toBeGreaterThan(ms - 1000);
});

test('the jest run gives the local stacks 4 times the deployed timeouts', () => {
  expect(process.env.LOCAL_TIMEOUT_SCALE).toBe('4');
});

test.each([
  ['1', 1000],
  ['2', 2000],
])('LOCAL_TIMEOUT_SCALE=%s: a route of 1 s that never answers is answered 503 after %i ms', async (scale, ms) => {
  const route = { id: 'slow', method: 'GET', path: '/slow', handler: 'none', timeoutSeconds: 1 } as unknown as RouteDefinition;
  const server = createHttpServer({ extraRoutes: [{ route, handler: () => new Promise(() => undefined) }] });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const saved = process.env.LOCAL_TIMEOUT_SCALE;
  process.env.LOCAL_TIMEOUT_SCALE = scale;
  try {
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`);
    const took = Date.now() - started;
    expect(res.status).toBe(503);
    expect(took).toBeGreaterThanOrEqual(ms - 10);
  } finally {
    process.env.LOCAL_TIMEOUT_SCALE = saved;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
