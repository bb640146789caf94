/** Dispute routes (DESIGN.md 9.4): the merchant's card chargebacks and PIX MED infractions, their evidence and answer. */
import { defaultRateLimit, type RouteDefinition } from './route-types';

const base = { auth: 'api_key', family: 'checkout' } as const;
const path = '/api/v1/disputes/{dispute_id}';

export const DISPUTE_ROUTES = [
  {
    ...base,
    id: 'listDisputes',
    method: 'GET',
    path: '/api/v1/disputes',
    handler: 'functions/disputes/list-disputes.handler.ts',
    scope: 'payments:read',
    rateLimitPerMinute: defaultRateLimit('GET'),
    idempotent: false,
    access: { table: 'readwrite' },
    summary: 'List disputes, newest first (filter by status or payment; offset or cursor pagination).',
  },
  {
    ...base,
    id: 'getDispute',
    method: 'GET',
    path,
    handler: 'functions/disputes/get-dispute.handler.ts',
    scope: 'payments:read',
    rateLimitPerMinute: defaultRateLimit('GET'),
    idempotent: false,
    access: { table: 'readwrite', providers: true },
    summary: 'The dispute, with the defense reasons and documents its provider lists for it while it needs a response.',
  },
  {
    ...base,
    id: 'stageDisputeEvidence',
    method: 'POST',
    path: `${path}/evidence`,
    handler: 'functions/disputes/stage-dispute-evidence.handler.ts',
    scope: 'payments:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    idempotent: true,
    access: { table: 'readwrite', providers: true },
    memoryMb: 512,
    // Documents come as base64 in the JSON body: up to Lambda's synchronous payload limit (6 MB), not the API's 64 KB.
    // That is a 2 MB PDF (2.8 MB as base64) with room to spare, but a JPEG or TIFF of at most about 4.4 MB.
    maxBodyBytes: 6 * 1024 * 1024,
    // Stages documents in our table and sends nothing to a provider: the API's 5xx alarm covers it.
    paging: false,
    summary: 'Stage evidence: a defense reason, its documents (PDF, JPEG, TIFF) and text; replaces what was staged.',
  },
  {
    ...base,
    id: 'submitDispute',
    method: 'POST',
    path: `${path}/submit`,
    handler: 'functions/disputes/submit-dispute.handler.ts',
    scope: 'payments:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    idempotent: true,
    access: { table: 'readwrite', queues: { payouts: 'send' }, providers: true },
    memoryMb: 512,
    timeoutSeconds: 29,
    // Rare (a dispute per thousands of payments) and answered by the provider's own 5xx when it fails: the API's 5xx
    // alarm covers it, as it covers accept ($0.40 a month for the two alarms of their own would pass the stage's $20).
    paging: false,
    summary: 'Submit the staged evidence to the provider: the dispute goes under_review until it is won or lost.',
  },
  {
    ...base,
    id: 'acceptDispute',
    method: 'POST',
    path: `${path}/accept`,
    handler: 'functions/disputes/accept-dispute.handler.ts',
    scope: 'payments:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    idempotent: true,
    // The sandbox's PSP returns an accepted test PIX MED a few seconds later (the settlement queue).
    access: { table: 'readwrite', queues: { payouts: 'send' }, providers: true },
    paging: false,
    summary: 'Accept the dispute: the disputed amount stays with the payer, the case closes.',
  },
  {
    ...base,
    id: 'simulateDispute',
    sandboxOnly: true,
    method: 'POST',
    path: '/api/v1/sandbox/payments/{payment_id}/dispute',
    handler: 'functions/sandbox/simulate-dispute.handler.ts',
    scope: 'payments:write',
    rateLimitPerMinute: defaultRateLimit('POST'),
    idempotent: true,
    access: { table: 'readwrite' },
    summary: 'Dispute a successful test payment as its payer’s bank would: a card chargeback or a PIX MED (sk_test_ keys only).',
  },
] as const satisfies readonly RouteDefinition[];
