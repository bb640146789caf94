import type { Access } from './access';

/**
 * The route manifest: the single list of HTTP endpoints. CDK builds one API
 * route and one Lambda per entry; the local server builds its router from it.
 * Adding an endpoint is one entry here plus one handler file.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * none: public (health, the customer-facing pages, which are authorised by an
 * unguessable cs_/pi_ id in the path); api_key: X-API-Key / Bearer sk_...;
 * session: authorised by the checkout session id in the body.
 */
export type AuthKind = 'none' | 'api_key' | 'session';

/** Which of SPEC.md section 7's error shapes the route answers with. */
export type ErrorFamily = 'checkout' | 'direct' | 'process';

export const SCOPES = [
  'methods:read',
  'checkout:read',
  'checkout:write',
  'payments:read',
  'payments:write',
  'payouts:read',
  'payouts:write',
  'balance:read',
  'events:read',
  'events:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export interface RouteDefinition {
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway path syntax: /api/v1/methods/{method_code} */
  readonly path: string;
  /** Handler file, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly auth: AuthKind;
  /** Scope an API key needs (auth api_key only). */
  readonly scope?: Scope;
  /** Requests per merchant per minute; null: not rate-limited. */
  readonly rateLimitPerMinute: number | null;
  readonly family: ErrorFamily;
  /** Accepts X-Idempotency-Key. */
  readonly idempotent: boolean;
  readonly access: Access;
  /** Request body encoding; 'form' for the sandbox pages' HTML forms. Default json. */
  readonly bodyFormat?: 'json' | 'form';
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
  readonly summary: string;
}

/** DESIGN.md section 4: routes SPEC.md does not list get 300/min for GET, 100/min for POST. */
export const defaultRateLimit = (method: HttpMethod) => (method === 'GET' ? 300 : 100);

export const ROUTES = [
  {
    id: 'health',
    method: 'GET',
    path: '/health',
    handler: 'functions/system/health.handler.ts',
    auth: 'none',
    rateLimitPerMinute: null,
    family: 'checkout',
    idempotent: false,
    access: { table: 'read' },
    summary: 'Liveness and dependency check; no key needed.',
  },
  {
    id: 'listMethods',
    method: 'GET',
    path: '/api/v1/methods',
    handler: 'functions/discovery/list-methods.handler.ts',
    auth: 'api_key',
    scope: 'methods:read',
    rateLimitPerMinute: defaultRateLimit('GET'),
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'List the payment methods the merchant can use (filters: country, currency, payment_type).',
  },
  {
    id: 'getMethod',
    method: 'GET',
    path: '/api/v1/methods/{method_code}',
    handler: 'functions/discovery/get-method.handler.ts',
    auth: 'api_key',
    scope: 'methods:read',
    rateLimitPerMinute: defaultRateLimit('GET'),
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'One payment method (PaymentMethodInfo).',
  },
  {
    id: 'createCheckoutSession',
    method: 'POST',
    path: '/api/v1/checkout',
    handler: 'functions/checkout/create-session.handler.ts',
    auth: 'api_key',
    scope: 'checkout:write',
    rateLimitPerMinute: 100,
    family: 'checkout',
    idempotent: true,
    access: { table: 'readwrite' },
    summary: 'Create a hosted checkout session (SPEC.md 4.1.1).',
  },
  {
    id: 'getCheckoutSession',
    method: 'GET',
    path: '/api/v1/checkout/{session_id}',
    handler: 'functions/checkout/get-session.handler.ts',
    auth: 'api_key',
    scope: 'checkout:read',
    rateLimitPerMinute: 300,
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
    summary: 'The session record of SPEC.md 2.1.',
  },
  {
    id: 'cancelCheckoutSession',
    method: 'POST',
    path: '/api/v1/checkout/{session_id}/cancel',
    handler: 'functions/checkout/cancel-session.handler.ts',
    auth: 'api_key',
    scope: 'checkout:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    family: 'checkout',
    idempotent: true,
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
    summary: 'Cancel a pending session.',
  },
  {
    id: 'processCheckoutPayment',
    method: 'POST',
    path: '/api/v1/checkout/process',
    handler: 'functions/checkout/process-payment.handler.ts',
    auth: 'session',
    rateLimitPerMinute: 30,
    family: 'process',
    idempotent: false,
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
    summary: 'Pay a checkout session from the hosted page; authorised by the session id.',
  },
  {
    id: 'createDirectPayment',
    method: 'POST',
    path: '/cashier/cashier/payment',
    handler: 'functions/payments/create-payment.handler.ts',
    auth: 'api_key',
    scope: 'payments:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    family: 'direct',
    idempotent: true,
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
    summary: 'Create a direct PIX or card payment (SPEC.md 4.2).',
  },
  {
    id: 'getPaymentStatus',
    method: 'GET',
    path: '/cashier/cashier/status/{merchant_id}/{payment_id}',
    handler: 'functions/payments/get-payment-status.handler.ts',
    auth: 'api_key',
    scope: 'payments:read',
    rateLimitPerMinute: defaultRateLimit('GET'),
    family: 'direct',
    idempotent: false,
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
    summary: 'The payment status record.',
  },
  {
    id: 'simulatePayment',
    method: 'POST',
    path: '/api/v1/sandbox/payments/{payment_id}/simulate',
    handler: 'functions/sandbox/simulate-payment.handler.ts',
    auth: 'api_key',
    scope: 'payments:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    family: 'checkout',
    idempotent: true,
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
    summary: 'Complete a pending test payment with success or failed (sk_test_ keys only).',
  },
  {
    id: 'checkoutPage',
    method: 'GET',
    path: '/checkout/{session_id}',
    handler: 'functions/pages/checkout-page.handler.ts',
    auth: 'none',
    rateLimitPerMinute: 120,
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
    summary: 'The hosted checkout page (HTML).',
  },
  {
    id: 'pixQrImage',
    method: 'GET',
    path: '/checkout/pix-qr/{payment_id}',
    handler: 'functions/pages/pix-qr.handler.ts',
    auth: 'none',
    rateLimitPerMinute: 120,
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'PNG of a PIX payment QR code.',
  },
  {
    id: 'sandboxPage',
    method: 'GET',
    path: '/sandbox/{kind}/{payment_id}',
    handler: 'functions/pages/sandbox-page.handler.ts',
    auth: 'none',
    rateLimitPerMinute: 120,
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
    summary: 'Sandbox 3DS challenge, wallet approval or customer-paid page (test payments only).',
  },
  {
    id: 'sandboxComplete',
    method: 'POST',
    path: '/sandbox/{kind}/{payment_id}',
    handler: 'functions/pages/sandbox-complete.handler.ts',
    auth: 'none',
    rateLimitPerMinute: 60,
    family: 'checkout',
    idempotent: false,
    bodyFormat: 'form',
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
    summary: 'The sandbox page form: completes the test payment and redirects the customer.',
  },
  {
    id: 'sandboxDone',
    method: 'GET',
    path: '/sandbox/3ds/{payment_id}/done',
    handler: 'functions/pages/sandbox-done.handler.ts',
    auth: 'none',
    rateLimitPerMinute: 120,
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
    summary: 'Result page of a direct 3DS payment without a return_url.',
  },
  {
    id: 'listEvents',
    method: 'GET',
    path: '/api/v1/events',
    handler: 'functions/events/list-events.handler.ts',
    auth: 'api_key',
    scope: 'events:read',
    rateLimitPerMinute: defaultRateLimit('GET'),
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'The merchant’s events, newest first (filters type, object_id, delivery_status; cursor pagination).',
  },
  {
    id: 'getEvent',
    method: 'GET',
    path: '/api/v1/events/{event_id}',
    handler: 'functions/events/get-event.handler.ts',
    auth: 'api_key',
    scope: 'events:read',
    rateLimitPerMinute: defaultRateLimit('GET'),
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'One event with its payload and delivery attempts.',
  },
  {
    id: 'resendEvent',
    method: 'POST',
    path: '/api/v1/events/{event_id}/resend',
    handler: 'functions/events/resend-event.handler.ts',
    auth: 'api_key',
    scope: 'events:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    family: 'checkout',
    idempotent: true,
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
    summary: 'Deliver an event again.',
  },
  {
    id: 'createPayout',
    method: 'POST',
    path: '/api/v1/payout',
    handler: 'functions/payouts/create-payout.handler.ts',
    auth: 'api_key',
    scope: 'payouts:write',
    rateLimitPerMinute: 50,
    family: 'checkout',
    idempotent: true,
    access: { table: 'readwrite', queues: { webhooks: 'send', payouts: 'send' } },
    summary: 'Create a payout (SPEC.md 4.4.1).',
  },
  {
    id: 'getPayout',
    method: 'GET',
    path: '/api/v1/payout/{payout_id}',
    handler: 'functions/payouts/get-payout.handler.ts',
    auth: 'api_key',
    scope: 'payouts:read',
    rateLimitPerMinute: 200,
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'The payout record, beneficiary masked.',
  },
  {
    id: 'cancelPayout',
    method: 'POST',
    path: '/api/v1/payout/{payout_id}/cancel',
    handler: 'functions/payouts/cancel-payout.handler.ts',
    auth: 'api_key',
    scope: 'payouts:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    family: 'checkout',
    idempotent: true,
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
    summary: 'Cancel a pending payout.',
  },
  {
    id: 'listPayouts',
    method: 'GET',
    path: '/api/v1/payout',
    handler: 'functions/payouts/list-payouts.handler.ts',
    auth: 'api_key',
    scope: 'payouts:read',
    rateLimitPerMinute: 100,
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'List payouts, newest first.',
  },
  {
    id: 'availablePayoutMethods',
    method: 'GET',
    path: '/api/v1/payout/methods/available',
    handler: 'functions/payouts/available-methods.handler.ts',
    auth: 'api_key',
    scope: 'payouts:read',
    rateLimitPerMinute: defaultRateLimit('GET'),
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'Payout methods available to the merchant.',
  },
  {
    id: 'validateBeneficiary',
    method: 'POST',
    path: '/api/v1/payout/validate-beneficiary',
    handler: 'functions/payouts/validate-beneficiary.handler.ts',
    auth: 'api_key',
    scope: 'payouts:read',
    rateLimitPerMinute: 100,
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'Validate a beneficiary before creating a payout.',
  },
  {
    id: 'getBalance',
    method: 'GET',
    path: '/api/v1/balance',
    handler: 'functions/payouts/get-balance.handler.ts',
    auth: 'api_key',
    scope: 'balance:read',
    rateLimitPerMinute: defaultRateLimit('GET'),
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'Balances per currency.',
  },
  {
    id: 'topUpTestBalance',
    method: 'POST',
    path: '/api/v1/sandbox/balance/top-up',
    handler: 'functions/sandbox/top-up-balance.handler.ts',
    auth: 'api_key',
    scope: 'payouts:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    family: 'checkout',
    idempotent: true,
    access: { table: 'readwrite' },
    summary: 'Add test money to a sandbox balance (sk_test_ keys only).',
  },
] as const satisfies readonly RouteDefinition[];

export type RouteId = (typeof ROUTES)[number]['id'];

/**
 * Answers every request no route matches: 404 in the JSON error shape, or 405
 * with Allow when the path exists under another method. API Gateway's $default route.
 */
export const FALLBACK_ROUTE = {
  id: 'fallback',
  handler: 'functions/system/not-found.handler.ts',
  access: { table: 'none' },
} as const;

export function routeById(id: string): RouteDefinition {
  const route = (ROUTES as readonly RouteDefinition[]).find((r) => r.id === id);
  if (!route) throw new Error(`No route "${id}" in the manifest`);
  return route;
}

const templateCache = new Map<string, RegExp>();
function templateRegex(path: string): RegExp {
  let re = templateCache.get(path);
  if (!re) {
    const pattern = path
      .split('/')
      .map((seg) => (/^\{[a-z_]+\}$/i.test(seg) ? `(?<${seg.slice(1, -1)}>[^/]+)` : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    re = new RegExp(`^${pattern}/?$`);
    templateCache.set(path, re);
  }
  return re;
}

/** Matches a concrete path against a template; returns the decoded path parameters or null. */
export function matchPath(template: string, path: string): Record<string, string> | null {
  const m = templateRegex(template).exec(path);
  if (!m) return null;
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.groups ?? {})) {
    try {
      params[k] = decodeURIComponent(v);
    } catch {
      params[k] = v;
    }
  }
  return params;
}

export interface RouteMatch {
  readonly route: RouteDefinition;
  readonly pathParameters: Record<string, string>;
}

/**
 * Finds the route for a method and path. Literal segments beat parameters
 * (/api/v1/payout/methods/available before /api/v1/payout/{payout_id}), as in API Gateway.
 */
export function resolveRoute(
  method: string,
  path: string,
  routes: readonly RouteDefinition[] = ROUTES,
): { match: RouteMatch | null; allowed: HttpMethod[] } {
  const candidates = routes
    .map((route) => ({ route, params: matchPath(route.path, path) }))
    .filter((c): c is { route: RouteDefinition; params: Record<string, string> } => c.params !== null)
    .sort((a, b) => Object.keys(a.params).length - Object.keys(b.params).length);
  const allowed = [...new Set(candidates.map((c) => c.route.method))];
  const hit = candidates.find((c) => c.route.method === method.toUpperCase());
  return { match: hit ? { route: hit.route, pathParameters: hit.params } : null, allowed };
}
