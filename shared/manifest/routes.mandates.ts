/** Mandate routes (DESIGN.md 9.3): Pix Automático and cards on file, and the charges made under them. */
import { defaultRateLimit, type RouteDefinition } from './route-types';

const base = { auth: 'api_key', family: 'checkout' } as const;

export const MANDATE_ROUTES = [
  {
    ...base,
    id: 'createMandate',
    method: 'POST',
    path: '/api/v1/mandates',
    handler: 'functions/mandates/create-mandate.handler.ts',
    scope: 'payments:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    idempotent: true,
    // Sandbox decisions go on the settlement queue; live recurrences are set up at the PSP from this function.
    access: { table: 'readwrite', queues: { payouts: 'send' }, providers: true },
    summary: 'Create a mandate (Pix Automático or a card on file) pending the payer’s approval.',
  },
  {
    ...base,
    id: 'listMandates',
    method: 'GET',
    path: '/api/v1/mandates',
    handler: 'functions/mandates/list-mandates.handler.ts',
    scope: 'payments:read',
    rateLimitPerMinute: defaultRateLimit('GET'),
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'List mandates, newest first (filter by status; offset or cursor pagination).',
  },
  {
    ...base,
    id: 'getMandate',
    method: 'GET',
    path: '/api/v1/mandates/{mandate_id}',
    handler: 'functions/mandates/get-mandate.handler.ts',
    scope: 'payments:read',
    rateLimitPerMinute: defaultRateLimit('GET'),
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'The mandate, with what the payer approves while it is pending.',
  },
  {
    ...base,
    id: 'cancelMandate',
    method: 'POST',
    path: '/api/v1/mandates/{mandate_id}/cancel',
    handler: 'functions/mandates/cancel-mandate.handler.ts',
    scope: 'payments:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    idempotent: true,
    access: { table: 'readwrite', providers: true },
    summary: 'Cancel a mandate: the recurrence or stored card ends at the provider, no charge can follow.',
  },
  {
    ...base,
    id: 'createMandateCharge',
    method: 'POST',
    path: '/api/v1/mandates/{mandate_id}/charges',
    handler: 'functions/mandates/create-mandate-charge.handler.ts',
    scope: 'payments:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    idempotent: true,
    access: { table: 'readwrite', providers: true },
    summary: 'Charge an active mandate: a payment (mandate_id set), one per billing cycle.',
  },
] as const satisfies readonly RouteDefinition[];
