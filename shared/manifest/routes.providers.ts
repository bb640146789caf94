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
    id: 'adyenNotifications',
    method: 'POST',
    path: '/providers/adyen/notifications',
    handler: 'functions/providers/adyen-notifications.handler.ts',
    auth: 'none',
    rateLimitPerMinute: null,
    family: 'checkout',
    idempotent: false,
    bodyFormat: 'raw',
    access: { table: 'readwrite', queues: { webhooks: 'send', payouts: 'send' }, providers: true },
    timeoutSeconds: 29,
    summary: "Adyen standard notifications: each item's HMAC verified before it is read; answered [accepted] once its effect is committed.",
  },
  {
    id: 'adyenThreeDs',
    method: 'GET',
    path: '/providers/adyen/3ds/{payment_id}',
    handler: 'functions/providers/adyen-3ds.handler.ts',
    auth: 'none',
    rateLimitPerMinute: 120,
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite' },
    summary: "A live card's 3-D Secure: forwards the shopper to Adyen's redirect action.",
  },
  {
    id: 'adyenReturn',
    method: 'GET',
    path: '/providers/adyen/return/{payment_id}',
    handler: 'functions/providers/adyen-return.handler.ts',
    auth: 'none',
    rateLimitPerMinute: 120,
    family: 'checkout',
    idempotent: false,
    access: { table: 'readwrite', queues: { webhooks: 'send', payouts: 'send' }, providers: true },
    timeoutSeconds: 29,
    summary: "Back from Adyen's 3-D Secure: /payments/details completes the payment, then the shopper goes to the return URL.",
  },
] as const satisfies readonly RouteDefinition[];
