/**
 * A merchant's calls to the dispute routes, for the live dispute suites: `api` for any route (with an Idempotency-Key
 * when given, as another merchant when its API key is given), and the four calls on one dispute. The stack and the
 * API key are read at each call: the suites start them in beforeAll.
 */
import type { TestStack } from './test-stack';

export function disputeCalls(stack: () => TestStack, apiKey: () => string) {
  const api = (method: string, path: string, body?: unknown, key?: string, asKey: string = apiKey()) =>
    stack().request(path, {
      method,
      apiKey: asKey,
      headers: { 'content-type': 'application/json', ...(key ? { 'x-idempotency-key': key } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    api,
    getDispute: (id: string) => api('GET', `/api/v1/disputes/${id}`),
    stage: (id: string, evidence: unknown, key?: string) => api('POST', `/api/v1/disputes/${id}/evidence`, evidence, key),
    submit: (id: string, key?: string) => api('POST', `/api/v1/disputes/${id}/submit`, undefined, key),
    accept: (id: string, key?: string) => api('POST', `/api/v1/disputes/${id}/accept`, undefined, key),
  };
}
