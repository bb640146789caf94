/** The validation middleware: body parsing limits and zod validation of query, path and body. No AWS. */
import type middy from '@middy/core';
import * as z from 'zod';
import { AppError } from '../../shared/domain/errors';
import { MAX_BODY_BYTES, validation, type InputSchemas } from '../../shared/http/middleware/validation';
import { routeById } from '../../shared/manifest/routes';
import type { HttpEvent, HttpResult, PipelineContext } from '../../shared/http/types';

type Request = middy.Request<HttpEvent, HttpResult, Error, PipelineContext>;

function event(over: Partial<HttpEvent> = {}): HttpEvent {
  return {
    version: '2.0',
    routeKey: 'POST /x',
    rawPath: '/x',
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    isBase64Encoded: false,
    requestContext: {
      accountId: '1',
      apiId: 'api',
      domainName: 'example.test',
      domainPrefix: 'example',
      http: { method: 'POST', path: '/x', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' },
      requestId: 'req-1',
      routeKey: 'POST /x',
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: 0,
    },
    ...over,
  };
}

function request(ev: HttpEvent): Request {
  const context = {
    awsRequestId: 'aws-1',
    requestId: 'req-1',
    route: routeById('listMethods'),
    startedAt: 0,
    input: { query: {}, path: {}, body: undefined },
    responseHeaders: {},
    getRemainingTimeInMillis: () => 30_000,
  } as unknown as PipelineContext;
  return { event: ev, context, response: undefined, error: undefined, internal: {} };
}

const schemas: InputSchemas = {
  query: z.object({ limit: z.coerce.number().int().max(100).optional() }),
  path: z.object({ id: z.string().startsWith('pi_') }),
  body: z.object({ amount: z.number().positive(), customer: z.object({ email: z.email(), name: z.string().optional() }) }),
};
const goodBody = { amount: 10, customer: { email: 'a@b.co', name: 'Ana' } };

async function run(ev: HttpEvent, s: InputSchemas = schemas): Promise<Request> {
  const req = request(ev);
  await validation(s).before!(req);
  return req;
}

async function rejection(ev: HttpEvent, s: InputSchemas = schemas): Promise<AppError> {
  try {
    await run(ev, s);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected the validation middleware to throw');
}

const valid = (over: Partial<HttpEvent> = {}) =>
  event({ queryStringParameters: { limit: '5' }, pathParameters: { id: 'pi_1' }, body: JSON.stringify(goodBody), ...over });

/** A JSON body of exactly `bytes` UTF-8 bytes: {"pad":"xxxx..."}. */
const paddedBody = (bytes: number) => JSON.stringify({ pad: 'x'.repeat(bytes - '{"pad":""}'.length) });
const padSchema: InputSchemas = { body: z.object({ pad: z.string() }) };

describe('validation middleware', () => {
  it('puts the parsed query, path and body on context.input', async () => {
    const req = await run(valid());
    expect(req.context.input).toEqual({ query: { limit: 5 }, path: { id: 'pi_1' }, body: goodBody });
  });

  it('strips unknown fields, top-level and nested, from context.input.body', async () => {
    const body = { ...goodBody, admin: true, customer: { ...goodBody.customer, role: 'root' } };
    const req = await run(valid({ body: JSON.stringify(body) }));
    expect(req.context.input.body).toStrictEqual({ amount: 10, customer: { email: 'a@b.co', name: 'Ana' } });
  });

  it('reports zod errors on query, path and body together, with nested field paths', async () => {
    const err = await rejection(
      event({
        queryStringParameters: { limit: 'abc' },
        pathParameters: { id: 'x_1' },
        body: JSON.stringify({ customer: { email: 'not-an-email' } }),
      }),
    );
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.status).toBe(400);
    const fields = (err.details ?? []).map((d) => d.field).sort();
    expect(fields).toEqual(['amount', 'customer.email', 'id', 'limit']);
    for (const d of err.details ?? []) expect(d.message.length).toBeGreaterThan(0);
    expect(err.message).toMatch(/limit/);
    expect(err.message).toMatch(/customer\.email/);
  });

  it('names the location when a whole part is missing', async () => {
    const err = await rejection(event({ pathParameters: { id: 'pi_1' } }));
    expect(err.details).toEqual([expect.objectContaining({ field: 'body' })]);
  });

  it('does not touch context.input when validation fails', async () => {
    const req = request(event({ pathParameters: { id: 'bad' }, body: JSON.stringify(goodBody) }));
    const before = req.context.input;
    await expect(Promise.resolve().then(() => validation(schemas).before!(req))).rejects.toThrow(AppError);
    expect(req.context.input).toBe(before);
  });

  it('rejects malformed JSON with a body field error', async () => {
    const err = await rejection(valid({ body: '{"amount": 10,' }));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details).toEqual([{ field: 'body', message: 'malformed JSON' }]);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['form encoded', 'application/x-www-form-urlencoded'],
    ['jsonp', 'application/jsonp'],
    ['no content type', undefined],
  ])('rejects a body sent as %s', async (_w, contentType) => {
    const headers = contentType === undefined ? {} : { 'content-type': contentType };
    const err = await rejection(valid({ headers }));
    expect(err.details).toEqual([{ field: 'content-type', message: 'must be application/json' }]);
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/vnd.api+json'])(
    'accepts content type %s',
    async (contentType) => {
      const req = await run(valid({ headers: { 'content-type': contentType } }));
      expect(req.context.input.body).toEqual(goodBody);
    },
  );

  it('accepts a body of exactly MAX_BODY_BYTES and rejects one byte more', async () => {
    expect(MAX_BODY_BYTES).toBe(64 * 1024);
    const exact = paddedBody(MAX_BODY_BYTES);
    expect(Buffer.byteLength(exact)).toBe(MAX_BODY_BYTES);
    const req = await run(event({ body: exact }), padSchema);
    expect((req.context.input.body as { pad: string }).pad).toHaveLength(MAX_BODY_BYTES - 10);

    const err = await rejection(event({ body: paddedBody(MAX_BODY_BYTES + 1) }), padSchema);
    expect(err.details).toEqual([{ field: 'body', message: `must be at most ${MAX_BODY_BYTES} bytes` }]);
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const body = JSON.stringify({ pad: 'é'.repeat(40_000) }); // 40 k characters, 80 k bytes
    expect(body.length).toBeLessThan(MAX_BODY_BYTES);
    const err = await rejection(event({ body }), padSchema);
    expect(err.details?.[0]?.field).toBe('body');
  });

  it('checks the size before the content type', async () => {
    const err = await rejection(event({ body: 'x'.repeat(MAX_BODY_BYTES + 1), headers: { 'content-type': 'text/plain' } }), padSchema);
    expect(err.details?.[0]).toEqual({ field: 'body', message: `must be at most ${MAX_BODY_BYTES} bytes` });
  });

  it('decodes a base64-encoded body and limits its decoded size', async () => {
    const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
    const req = await run(valid({ body: b64(JSON.stringify(goodBody)), isBase64Encoded: true }));
    expect(req.context.input.body).toEqual(goodBody);

    // The encoded form of a 64 KB body is ~87 KB; only the decoded bytes count.
    const exact = b64(paddedBody(MAX_BODY_BYTES));
    expect(exact.length).toBeGreaterThan(MAX_BODY_BYTES);
    await expect(run(event({ body: exact, isBase64Encoded: true }), padSchema)).resolves.toBeDefined();
    const err = await rejection(event({ body: b64(paddedBody(MAX_BODY_BYTES + 1)), isBase64Encoded: true }), padSchema);
    expect(err.details?.[0]?.field).toBe('body');

    const bad = await rejection(valid({ body: b64('{not json'), isBase64Encoded: true }));
    expect(bad.details).toEqual([{ field: 'body', message: 'malformed JSON' }]);
  });

  it('treats an absent or empty body as undefined, which needs no content type', async () => {
    const s: InputSchemas = { body: z.object({ a: z.string() }).optional() };
    for (const body of [undefined, '']) {
      const req = await run(event({ body, headers: {} }), s);
      expect(req.context.input.body).toBeUndefined();
    }
  });

  it('leaves parts without a schema as their defaults', async () => {
    const req = await run(event({ queryStringParameters: { x: '1' } }), {});
    expect(req.context.input).toEqual({ query: {}, path: {}, body: undefined });
  });
});
