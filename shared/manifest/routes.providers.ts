/**
 * Provider callback routes (DESIGN.md section 8): public, no API key. Each is trusted only after an
 * unguessable token in the path matches the stage's configuration and the object is read back from the
 * provider; a wrong token is 404 with nothing read.
 */
import type { RouteDefinition } from './route-types';

export const PROVIDER_ROUTES = [
  {
    id: 'apiPixCallback',
    method: 'POST',
    path: '/providers/api-pix/{token}/pix',
    handler: 'functions/providers/api-pix-callback.handler.ts',
    auth: 'none',
    rateLimitPerMinute: null,
    family: 'checkout',
    idempotent: false,
    bodyFormat: 'raw',
    access: { table: 'readwrite', queues: { webhooks: 'send', payouts: 'send' }, providers: true },
    timeoutSeconds: 29,
    summary: 'API Pix PSP callback: Pix received (and devoluções settled); each item is read back from the PSP before it counts.',
  },
  {
    id: 'stpEstadoCallback',
    method: 'POST',
    path: '/providers/stp/{token}/estado',
    handler: 'functions/providers/stp-estado.handler.ts',
    auth: 'none',
    rateLimitPerMinute: null,
    family: 'checkout',
    idempotent: false,
    bodyFormat: 'raw',
    access: { table: 'readwrite', queues: { webhooks: 'send' }, providers: true },
    timeoutSeconds: 29,
    summary: 'STP order-state change (LIQUIDACION, CANCELACION, DEVOLUCION): the order is read back from STP before it counts.',
  },
  {
    id: 'stpAbonoCallback',
    method: 'POST',
    path: '/providers/stp/{token}/abono',
    handler: 'functions/providers/stp-abono.handler.ts',
    auth: 'none',
    rateLimitPerMinute: null,
    family: 'checkout',
    idempotent: false,
    bodyFormat: 'raw',
    access: { table: 'readwrite', queues: { webhooks: 'send' }, providers: true },
    timeoutSeconds: 29,
    summary: 'STP incoming SPEI deposit (abono): recorded, then matched to its payment by CLABE and amount; unknown CLABEs are returned.',
  },
] as const satisfies readonly RouteDefinition[];
