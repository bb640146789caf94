/**
 * The published contract: an OpenAPI 3.1 document generated from the route manifest (paths, methods,
 * auth, scopes, rate limits, idempotency), the zod request and response schemas (zod-openapi, built on
 * zod 4's own JSON Schema output), the one error table and the webhook bodies. `npm run openapi` writes
 * it to openapi.json; GET /openapi.json and /docs serve that file.
 */
import * as z from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { ERRORS, type ErrorCode } from '../domain/errors';
import { ROUTES, type RouteDefinition, type RouteId } from '../manifest/routes';
import { checkoutError, directError, processError } from '../http/views/wire.schemas';
import { byStatus, ERROR_ACTIONS, routeErrorCodes } from './errors.contract';
import { addExamples } from './examples';
import { REQUEST_EXAMPLES } from './request-examples';
import { ROUTE_CONTRACTS, type ResponseContract, type RouteContract } from './routes.contract';
import { WEBHOOK_CONTRACTS } from './webhooks.contract';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../http/middleware/idempotency';

export const API_VERSION = '2026-11-23';

const TAGS: ReadonlyArray<{ name: string; match: RegExp; description: string }> = [
  { name: 'Hosted checkout', match: /^\/api\/v1\/checkout/, description: 'Sessions the shopper pays on our hosted page.' },
  { name: 'Direct payments', match: /^\/cashier\//, description: 'PIX and card payments from your own UI.' },
  { name: 'Refunds', match: /refunds/, description: 'Full and partial refunds of successful payments.' },
  { name: 'Discovery', match: /^\/api\/v1\/methods/, description: 'Which payment methods you can use.' },
  { name: 'Payouts', match: /^\/api\/v1\/payout/, description: 'Send money by PIX, SPEI, CVU/CBU or bank transfer.' },
  { name: 'Mandates', match: /^\/api\/v1\/mandates/, description: 'Recurring payments: Pix Automático and cards on file.' },
  { name: 'Balance', match: /^\/api\/v1\/balance/, description: 'Available balance and the ledger behind it.' },
  { name: 'Events', match: /^\/api\/v1\/events/, description: 'The event log behind webhooks; resend a delivery.' },
  { name: 'Sandbox', match: /^\/api\/v1\/sandbox/, description: 'Test-mode helpers (sk_test_ keys only).' },
  { name: 'Hosted pages', match: /^\/(checkout|sandbox)\//, description: 'Pages and data for shoppers (no key).' },
  { name: 'System', match: /./, description: 'Health and this reference.' },
];
const tagOf = (path: string) => TAGS.find((t) => t.match.test(path))?.name ?? 'System';

/** A response header, published once under components.headers and referenced. */
const header = (id: string, description: string, example: string) => z.string().meta({ description, example, header: { id } });
const RATE_HEADERS = {
  'X-RateLimit-Limit': header('X-RateLimit-Limit', 'Requests allowed per minute for this merchant and route.', '100'),
  'X-RateLimit-Remaining': header('X-RateLimit-Remaining', 'Requests left in the current minute.', '99'),
  'X-RateLimit-Reset': header('X-RateLimit-Reset', 'Unix time (seconds) the window resets.', '1795442760'),
};
const REQUEST_ID = { 'X-Request-Id': header('X-Request-Id', 'Quote it to support.', 'a1c3e3c0-8a7b-4c5e-9d0f-2b1e4c8f7a6d') };
const RETRY_AFTER = header('Retry-After', 'Seconds to wait before retrying.', '12');
const LOCATION = header('Location', 'Where the shopper goes.', 'https://shop.example.com/ok');

function errorSchema(route: RouteDefinition, codes: ErrorCode[]) {
  switch (route.family) {
    case 'direct':
      return directError(codes);
    case 'process':
      return processError(codes);
    default:
      return checkoutError(codes);
  }
}

function successResponse(route: RouteDefinition, r: ResponseContract) {
  const base = { ...REQUEST_ID, ...(route.rateLimitPerMinute !== null ? RATE_HEADERS : {}) };
  const headers = z.object(base);
  switch (r.kind ?? 'json') {
    case 'html':
      return { description: r.description, headers, content: { 'text/html': { schema: z.string() } } };
    case 'text':
      return { description: r.description, headers, content: { 'text/plain': { schema: z.string() } } };
    case 'png':
      return { description: r.description, headers, content: { 'image/png': { schema: z.string().meta({ format: 'binary' }) } } };
    case 'redirect':
      return { description: r.description, headers: z.object({ ...base, Location: LOCATION }) };
    default:
      return { description: r.description, headers, content: { 'application/json': { schema: r.schema ?? z.object({}) } } };
  }
}

function responses(route: RouteDefinition, contract: RouteContract): ZodOpenApiResponsesObject {
  const out: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(contract.responses)) out[status] = successResponse(route, r);
  for (const [status, codes] of byStatus(routeErrorCodes(route, contract))) {
    const key = String(status);
    const list = codes.map((c) => `\`${c}\` (${ERRORS[c].message} ${ERROR_ACTIONS[c]})`).join('; ');
    const headers = z.object({
      ...REQUEST_ID,
      ...(status === 429 ? { ...RATE_HEADERS, 'Retry-After': RETRY_AFTER } : {}),
      ...(codes.includes('BUSY_RETRY_SAME_KEY') ? { 'Retry-After': RETRY_AFTER } : {}),
    });
    const schema = errorSchema(route, codes);
    if (out[key]) {
      // A status with both an answer and errors (422 on process: declined, or a refund rule): either shape.
      const existing = out[key] as { content: { 'application/json': { schema: z.ZodType } } };
      existing.content['application/json'].schema = z.union([existing.content['application/json'].schema, schema]);
      continue;
    }
    out[key] = { description: `Error: ${list}`, headers, content: { 'application/json': { schema } } };
  }
  return out as ZodOpenApiResponsesObject;
}

const RATE_SUBJECT: Record<RouteDefinition['auth'], string> = {
  api_key: 'merchant (the default; ops can set another per merchant)',
  session: 'checkout session',
  none: 'object in the path',
};

function security(route: RouteDefinition): Array<Record<string, string[]>> {
  if (route.auth === 'api_key') return [{ apiKey: [] }, { bearer: [] }];
  return [];
}

function operation(route: RouteDefinition): ZodOpenApiOperationObject {
  const contract: RouteContract = ROUTE_CONTRACTS[route.id as RouteId];
  const req = contract.request ?? {};
  const headerParams = route.idempotent
    ? z.object({
        'X-Idempotency-Key': z
          .string()
          .max(MAX_IDEMPOTENCY_KEY_LENGTH)
          .optional()
          .meta({ description: 'A retry with the same key and body returns the first answer and writes nothing.', example: 'order-1001' }),
      })
    : undefined;
  const body = req.body
    ? {
        required: true,
        content:
          route.bodyFormat === 'form'
            ? { 'application/x-www-form-urlencoded': { schema: req.body, example: REQUEST_EXAMPLES[route.id as RouteId] } }
            : { 'application/json': { schema: req.body, example: REQUEST_EXAMPLES[route.id as RouteId] } },
      }
    : undefined;
  const notes = [
    route.auth === 'api_key' ? `Scope: \`${route.scope ?? '*'}\`.` : null,
    route.auth === 'session'
      ? 'No key: the checkout session id in the body authorises the call (it is the hosted page’s capability).'
      : null,
    route.rateLimitPerMinute !== null
      ? `Rate limit: ${route.rateLimitPerMinute} requests per minute per ${RATE_SUBJECT[route.auth]}.`
      : null,
    route.idempotent ? 'Idempotent with X-Idempotency-Key (24 h).' : null,
  ].filter(Boolean);
  return {
    operationId: route.id,
    summary: route.summary,
    description: notes.join(' '),
    tags: [tagOf(route.path)],
    security: security(route),
    requestParams: Object.fromEntries(Object.entries({ path: req.path, query: req.query, header: headerParams }).filter(([, v]) => v)),
    ...(body ? { requestBody: body } : {}),
    responses: responses(route, contract),
    'x-auth': route.auth,
    ...(route.scope ? { 'x-scope': route.scope } : {}),
    'x-rate-limit-per-minute': route.rateLimitPerMinute,
    'x-idempotent': route.idempotent,
    'x-error-shape': route.family,
  } as ZodOpenApiOperationObject;
}

function webhooks(): ZodOpenApiPathsObject {
  const out: ZodOpenApiPathsObject = {};
  for (const w of WEBHOOK_CONTRACTS) {
    out[w.type] = {
      post: {
        operationId: `webhook.${w.type}`,
        summary: w.summary,
        description:
          `Sent to the notification_url (or your default) as JSON. Verify ${w.hexHeader} (hex HMAC-SHA256 of the raw body with your ` +
          'webhook secret) or the Standard Webhooks headers, then answer 2xx quickly. Retried with backoff until a 2xx.',
        tags: [w.type.startsWith('checkout.') ? 'payment' : (w.type.split('.')[0] ?? 'event')],
        requestParams: {
          header: z.object({
            [w.hexHeader]: z
              .string()
              .meta({ description: 'Hex HMAC-SHA256 of the raw body; during a secret rotation, two values joined by a comma.' }),
            'Webhook-Id': z.string().meta({ description: 'The event id, stable across retries.' }),
            'Webhook-Timestamp': z.string().meta({ description: 'Unix seconds.' }),
            'Webhook-Signature': z.string().meta({ description: 'v1,<base64 HMAC-SHA256 of "id.timestamp.body">, Standard Webhooks.' }),
          }),
        },
        requestBody: { required: true, content: { 'application/json': { schema: w.body } } },
        responses: { '200': { description: 'Received. Any 2xx ends the retries.' } },
      },
    };
  }
  return out;
}

export function buildOpenApi(): Record<string, unknown> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of ROUTES as readonly RouteDefinition[]) {
    const item = (paths[route.path] ??= {}) as Record<string, ZodOpenApiOperationObject>;
    item[route.method.toLowerCase()] = operation(route);
  }
  const doc = createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'LatAm payments API',
        version: API_VERSION,
        description:
          'Pay-ins (hosted checkout, PIX, cards with 3-D Secure, boleto, SPEI, cash, wallets, bank transfer), refunds and payouts ' +
          '(PIX, SPEI/CLABE, CVU/CBU, bank transfer) across Latin America, with signed webhooks. Test keys (sk_test_) run on the ' +
          'sandbox, where every outcome can be simulated. Amounts are in major units.',
      },
      servers: [
        { url: '/', description: 'This stage' },
        { url: 'http://127.0.0.1:3000', description: 'Local stack (npm start)' },
      ],
      tags: TAGS.map(({ name, description }) => ({ name, description })),
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'sk_test_... (sandbox) or sk_live_...' },
          bearer: { type: 'http', scheme: 'bearer', description: 'The same key as Authorization: Bearer sk_...' },
        },
      },
      paths,
      webhooks: webhooks(),
    },
    { reused: 'inline' },
  ) as unknown as Record<string, unknown>;
  addExamples(doc);
  return doc;
}
