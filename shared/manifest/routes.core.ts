/** System and discovery routes (SPEC.md 4.3). */
import { defaultRateLimit, type RouteDefinition } from './route-types';

export const CORE_ROUTES = [
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
] as const satisfies readonly RouteDefinition[];
