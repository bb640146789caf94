/**
 * `npm run cli -- trigger EVENT [--json]`, like `stripe trigger`: creates through the public API, with a
 * test key, the objects whose sandbox outcome emits EVENT, then waits until the event is in the events API.
 * The magic values are the sandbox's own: test cards (shared/adapters/connectors/sandbox.connector.ts),
 * payout beneficiary documents (shared/domain/payouts/payout.ts sandboxOutcome), refund amounts ending
 * in 13 minor units (shared/domain/refunds/refund.ts sandboxRefundFails), mandate customer documents
 * (shared/domain/mandates/mandate.ts sandboxMandateOutcome), the mandate simulator's outcomes, and the sandbox's
 * disputes (shared/application/disputes/sandbox-disputes.ts: a submission is won unless its text says losing_evidence).
 */
import * as z from 'zod';
import { ApiError, apiError, recentEvents, sleep, type ApiClient } from './api-client';
import type { CliIo } from './io';

const CUSTOMER = { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' };
const card = (number: string) => ({
  number,
  holder_name: 'ANA SILVA',
  expiry_month: '12',
  expiry_year: String(new Date().getUTCFullYear() + 3),
  cvv: '123',
});
const beneficiary = (document: string) => ({
  name: 'Ana Silva',
  document,
  document_type: 'CPF',
  instant_transfer_key: 'ana@example.com',
  instant_transfer_type: 'email',
});
const METADATA = { source: 'cli trigger' };

const payment = z.object({ payment_id: z.string(), status: z.string() }).passthrough();
const session = z.object({ session_id: z.string() }).passthrough();
const sessionRecord = z.object({ merchant_id: z.string() }).passthrough();
const payout = z.object({ payout_id: z.string(), status: z.string() }).passthrough();
const refund = z.object({ refund_id: z.string(), status: z.string() }).passthrough();
const mandate = z.object({ mandate_id: z.string(), status: z.string() }).passthrough();
const dispute = z.object({ dispute_id: z.string(), status: z.string(), evidence_due_by: z.string().nullable() }).passthrough();
const anyBody = z.unknown();

interface Ctx {
  readonly client: ApiClient;
  readonly signal: AbortSignal;
  /** Progress for people (stderr), so --json output stays one document. */
  readonly note: (line: string) => void;
  /** Records (and prints at once) the id of an object the scenario created. */
  readonly object: (name: string, id: string) => void;
}

interface Created {
  /** The event that proves the scenario and the object it is about. */
  readonly event: string;
  readonly objectId: string;
  /** How long the event may take to show up. */
  readonly waitMs: number;
}

interface Scenario {
  readonly what: string;
  run(ctx: Ctx): Promise<Created>;
}

async function directCard(ctx: Ctx, number: string, amount = 25): Promise<z.infer<typeof payment>> {
  const body = {
    payment_method: 'card',
    amount,
    currency: 'BRL',
    country: 'BRA',
    customer: CUSTOMER,
    card: card(number),
    metadata: METADATA,
  };
  // A decline answers 422 with the payment id (SPEC.md 4.2): the outcome asked for, not an error.
  const r = await ctx.client.request('POST', '/cashier/cashier/payment', { body, accept: [422], signal: ctx.signal });
  const declined = z.object({ payment_id: z.string(), status: z.string().default('failed') }).passthrough();
  const p = (r.status === 422 ? declined : payment).safeParse(r.body);
  if (!p.success) throw apiError(r.status, r.body);
  ctx.object('payment_id', p.data.payment_id);
  return p.data;
}

async function checkoutSession(ctx: Ctx, expiresInMinutes?: number) {
  const body = {
    amount: 100.5,
    currency: 'BRL',
    country: 'BRA',
    success_url: 'https://shop.example/success',
    cancel_url: 'https://shop.example/cancel',
    reference_id: `cli-trigger-${Date.now()}`,
    metadata: METADATA,
    ...(expiresInMinutes ? { expires_in_minutes: expiresInMinutes } : {}),
  };
  const { session_id } = await ctx.client.post('/api/v1/checkout', body, session, ctx.signal);
  ctx.object('checkout_session_id', session_id);
  return session_id;
}

async function processSession(ctx: Ctx, sessionId: string, method: 'card' | 'pix', extra: Record<string, unknown> = {}) {
  const body = { session_id: sessionId, payment_method: method, customer: CUSTOMER, ...extra };
  const p = await ctx.client.post('/api/v1/checkout/process', body, payment, ctx.signal);
  ctx.object('payment_id', p.payment_id);
  return p;
}

async function createPayout(ctx: Ctx, document: string) {
  await ctx.client.post('/api/v1/sandbox/balance/top-up', { currency: 'BRL', amount: 10 }, anyBody, ctx.signal);
  const body = { method_code: 'svc-mt-5', amount: 10, currency: 'BRL', beneficiary: beneficiary(document), metadata: METADATA };
  const p = await ctx.client.post('/api/v1/payout', body, payout, ctx.signal);
  ctx.object('payout_id', p.payout_id);
  return p;
}

async function refundOf(ctx: Ctx, amount: number, event: string): Promise<Created> {
  const paid = await directCard(ctx, '4242424242424242', amount);
  if (paid.status !== 'success') throw new Error(`The payment to refund is ${paid.status}, not success.`);
  const r = await ctx.client.post(`/api/v1/payments/${paid.payment_id}/refunds`, { reason: 'requested_by_customer' }, refund, ctx.signal);
  ctx.object('refund_id', r.refund_id);
  ctx.note(`Refund ${r.refund_id} is ${r.status}; the sandbox settles it after REFUND_SETTLEMENT_DELAY_SECONDS (default 5 s).`);
  return { event, objectId: r.refund_id, waitMs: 60_000 };
}

const payoutScenario =
  (document: string, event: string) =>
  async (ctx: Ctx): Promise<Created> => {
    const p = await createPayout(ctx, document);
    ctx.note(`Payout ${p.payout_id} is ${p.status}; the sandbox settles it after PAYOUT_SETTLEMENT_DELAY_SECONDS (default 5 s).`);
    return { event, objectId: p.payout_id, waitMs: 90_000 };
  };

/** A monthly Pix Automático mandate of 9.90 BRL for the customer document, pending_approval. */
async function createMandate(ctx: Ctx, document: string) {
  const body = {
    country: 'BRA',
    currency: 'BRL',
    method: 'pix_automatico',
    customer: { ...CUSTOMER, document },
    description: 'cli trigger',
    frequency: 'monthly',
    amount: 9.9,
    start_date: new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10), // today in Brazil (UTC-3)
    metadata: METADATA,
  };
  const m = await ctx.client.post('/api/v1/mandates', body, mandate, ctx.signal);
  ctx.object('mandate_id', m.mandate_id);
  return m;
}

const DECISION_NOTE = 'the sandbox decides it after PAYOUT_SETTLEMENT_DELAY_SECONDS (default 5 s)';

/** The payer's decision by document: 00000000191 approves, 00000000272 rejects. */
const mandateScenario =
  (document: string, event: string) =>
  async (ctx: Ctx): Promise<Created> => {
    const m = await createMandate(ctx, document);
    ctx.note(`Mandate ${m.mandate_id} is ${m.status}; ${DECISION_NOTE}.`);
    return { event, objectId: m.mandate_id, waitMs: 90_000 };
  };

/** The simulator acting as the payer (test keys only). */
const simulateMandate = (ctx: Ctx, mandateId: string, outcome: 'expire' | 'payer_cancel') =>
  ctx.client.post(`/api/v1/sandbox/mandates/${mandateId}/simulate`, { outcome }, mandate, ctx.signal);

/** A mandate approved by document, once active (read until then). */
async function activeMandate(ctx: Ctx) {
  const m = await createMandate(ctx, '00000000191');
  ctx.note(`Mandate ${m.mandate_id} is ${m.status}; ${DECISION_NOTE}: waiting for it to be active.`);
  for (let i = 0; i < 180 && !ctx.signal.aborted; i++) {
    const now = await ctx.client.get(`/api/v1/mandates/${m.mandate_id}`, mandate, ctx.signal);
    if (now.status === 'active') return now;
    if (now.status !== 'pending_approval') throw new Error(`Mandate ${m.mandate_id} is ${now.status}, not active.`);
    await sleep(500, ctx.signal);
  }
  throw new Error(`Mandate ${m.mandate_id} was not approved in 90 s.`);
}

/** A paid 25 BRL card payment charged back by the sandbox (the amount withdrawn from the test balance): its dispute. */
async function cardDispute(ctx: Ctx, body: Record<string, unknown> = {}) {
  const paid = await directCard(ctx, '4242424242424242');
  if (paid.status !== 'success') throw new Error(`The payment to dispute is ${paid.status}, not success.`);
  const d = await ctx.client.post(`/api/v1/sandbox/payments/${paid.payment_id}/dispute`, body, dispute, ctx.signal);
  ctx.object('dispute_id', d.dispute_id);
  return d;
}

/** A small PDF (its magic bytes and nothing else of note): the defense material the sandbox's general reason requires. */
const DEFENSE_PDF = Buffer.from('%PDF-1.4\n% cli trigger defense material\n%%EOF\n').toString('base64');

/** A chargeback defended: evidence staged (SupplyDefenseMaterial with its PDF, and `text`), then submitted. */
const defendedDispute =
  (text: string, event: string) =>
  async (ctx: Ctx): Promise<Created> => {
    const d = await cardDispute(ctx);
    const evidence = {
      defense_reason: 'SupplyDefenseMaterial',
      documents: [{ type: 'DefenseMaterial', mime: 'application/pdf', content_base64: DEFENSE_PDF }],
      text,
    };
    await ctx.client.post(`/api/v1/disputes/${d.dispute_id}/evidence`, evidence, dispute, ctx.signal);
    const submitted = await ctx.client.post(`/api/v1/disputes/${d.dispute_id}/submit`, undefined, dispute, ctx.signal);
    ctx.note(`Dispute ${d.dispute_id} is ${submitted.status}; ${DECISION_NOTE}.`);
    return { event, objectId: d.dispute_id, waitMs: 90_000 };
  };

/** The warning's lead time (EVIDENCE_DUE_SOON_HOURS) less one hour: due at the warning job's next run. */
const DUE_SOON_HOURS = 47;

/** A PIX payment of a 5-minute session (the shortest SESSION_EXPIRY_MINUTES): it expires at the stage's
 * PIX expiry (PIX_EXPIRY_SECONDS) or with the session, whichever is first; a status read settles it on the spot. */
async function expiredPix(ctx: Ctx): Promise<Created> {
  const sessionId = await checkoutSession(ctx, 5);
  const p = await processSession(ctx, sessionId, 'pix');
  const expiresAt = z.string().parse(p.expires_at);
  const { merchant_id } = await ctx.client.get(`/api/v1/checkout/${sessionId}`, sessionRecord, ctx.signal);
  ctx.note(`PIX payment ${p.payment_id} expires at ${expiresAt}; waiting for it (up to the session's 5 minutes).`);
  await sleep(Math.max(0, Date.parse(expiresAt) - Date.now()) + 200, ctx.signal);
  for (let i = 0; i < 120 && !ctx.signal.aborted; i++) {
    const s = await ctx.client.get(`/cashier/cashier/status/${merchant_id}/${p.payment_id}`, payment, ctx.signal);
    if (s.status === 'expired') break;
    await sleep(1000, ctx.signal);
  }
  return { event: 'payment.expired', objectId: p.payment_id, waitMs: 30_000 };
}

export const SCENARIOS: Readonly<Record<string, Scenario>> = {
  'payment.success': {
    what: 'a direct card payment with 4242 4242 4242 4242 (approved at once)',
    run: async (ctx) => {
      const p = await directCard(ctx, '4242424242424242');
      return { event: 'payment.success', objectId: p.payment_id, waitMs: 30_000 };
    },
  },
  'payment.failed': {
    what: 'a direct card payment with 4000 0000 0000 0002 (declined: card_declined)',
    run: async (ctx) => {
      const p = await directCard(ctx, '4000000000000002');
      return { event: 'payment.failed', objectId: p.payment_id, waitMs: 30_000 };
    },
  },
  'payment.pending': {
    what: 'a direct card payment with 4000 0000 0000 3220 (needs 3-D Secure; emits payment.pending_3ds)',
    run: async (ctx) => {
      const p = await directCard(ctx, '4000000000003220');
      if (typeof p.redirect_url === 'string') ctx.note(`3-D Secure challenge: ${p.redirect_url}`);
      return { event: 'payment.pending_3ds', objectId: p.payment_id, waitMs: 30_000 };
    },
  },
  'payment.expired': {
    what: 'a PIX payment of a 5-minute checkout session left unpaid until it expires (PIX_EXPIRY_SECONDS, at most 5 min)',
    run: expiredPix,
  },
  'checkout.completed': {
    what: 'a hosted checkout session paid by card through /api/v1/checkout/process (emits payment.success with checkout_session_id)',
    run: async (ctx) => {
      const sessionId = await checkoutSession(ctx);
      const p = await processSession(ctx, sessionId, 'card', { card: card('4242424242424242') });
      return { event: 'payment.success', objectId: p.payment_id, waitMs: 30_000 };
    },
  },
  'payout.completed': {
    what: 'a 10 BRL PIX payout to document 00000000191 (completes)',
    run: payoutScenario('00000000191', 'payout.completed'),
  },
  'payout.failed': {
    what: 'a 10 BRL PIX payout to document 00000000272 (fails: invalid account)',
    run: payoutScenario('00000000272', 'payout.failed'),
  },
  'payout.refunded': {
    what: 'a 10 BRL PIX payout to document 00000000353 (completes, then the bank returns it)',
    run: payoutScenario('00000000353', 'payout.refunded'),
  },
  'payout.cancelled': {
    what: 'a 10 BRL PIX payout to document 00000000434 (stays pending), then cancelled',
    run: async (ctx) => {
      const p = await createPayout(ctx, '00000000434');
      await ctx.client.post(`/api/v1/payout/${p.payout_id}/cancel`, undefined, anyBody, ctx.signal);
      return { event: 'payout.cancelled', objectId: p.payout_id, waitMs: 30_000 };
    },
  },
  'mandate.approved': {
    what: 'a 9.90 BRL monthly Pix Automático mandate for document 00000000191 (the sandbox payer approves)',
    run: mandateScenario('00000000191', 'mandate.approved'),
  },
  'mandate.rejected': {
    what: 'a 9.90 BRL monthly Pix Automático mandate for document 00000000272 (the sandbox payer rejects)',
    run: mandateScenario('00000000272', 'mandate.rejected'),
  },
  'mandate.expired': {
    what: 'a Pix Automático mandate for document 00000000434 (the sandbox never decides it), then simulate expire',
    run: async (ctx) => {
      const m = await createMandate(ctx, '00000000434');
      await simulateMandate(ctx, m.mandate_id, 'expire');
      return { event: 'mandate.expired', objectId: m.mandate_id, waitMs: 30_000 };
    },
  },
  'mandate.cancelled': {
    what: 'an approved Pix Automático mandate (document 00000000191), then cancelled by the merchant',
    run: async (ctx) => {
      const m = await activeMandate(ctx);
      await ctx.client.post(`/api/v1/mandates/${m.mandate_id}/cancel`, undefined, mandate, ctx.signal);
      return { event: 'mandate.cancelled', objectId: m.mandate_id, waitMs: 30_000 };
    },
  },
  'mandate.payer_cancelled': {
    what: 'an approved Pix Automático mandate, then simulate payer_cancel (emits mandate.cancelled, cancelled_by payer)',
    run: async (ctx) => {
      const m = await activeMandate(ctx);
      await simulateMandate(ctx, m.mandate_id, 'payer_cancel');
      return { event: 'mandate.cancelled', objectId: m.mandate_id, waitMs: 30_000 };
    },
  },
  'dispute.created': {
    what: 'a 25 BRL card payment (4242 4242 4242 4242) disputed by the sandbox: a chargeback, the amount withdrawn',
    run: async (ctx) => {
      const d = await cardDispute(ctx);
      return { event: 'dispute.created', objectId: d.dispute_id, waitMs: 30_000 };
    },
  },
  'dispute.updated': {
    what: 'a card payment charged back by the sandbox, then the dispute accepted by the merchant (status accepted)',
    run: async (ctx) => {
      const d = await cardDispute(ctx);
      await ctx.client.post(`/api/v1/disputes/${d.dispute_id}/accept`, undefined, dispute, ctx.signal);
      return { event: 'dispute.updated', objectId: d.dispute_id, waitMs: 30_000 };
    },
  },
  'dispute.won': {
    what: 'a chargeback defended with a PDF (SupplyDefenseMaterial) and submitted: the sandbox decides it won',
    run: defendedDispute('The goods were delivered and signed for.', 'dispute.won'),
  },
  'dispute.lost': {
    what: 'a chargeback defended with the text losing_evidence and submitted: the sandbox decides it lost',
    run: defendedDispute('losing_evidence', 'dispute.lost'),
  },
  'dispute.evidence_due_soon': {
    what: `a chargeback whose evidence is due in ${DUE_SOON_HOURS} hours: the warning job (every 10 minutes) sends the event`,
    run: async (ctx) => {
      const d = await cardDispute(ctx, { evidence_due_by: new Date(Date.now() + DUE_SOON_HOURS * 3_600_000).toISOString() });
      ctx.note(
        `Dispute ${d.dispute_id} is due by ${d.evidence_due_by}; the readPixDisputes job warns it at its next run ` +
          '(every 10 minutes; on the local stack JOBS_INTERVAL_SECONDS sets it).',
      );
      return { event: 'dispute.evidence_due_soon', objectId: d.dispute_id, waitMs: 11 * 60_000 };
    },
  },
  'refund.succeeded': { what: 'a 10.00 BRL card payment refunded in full (succeeds)', run: (ctx) => refundOf(ctx, 10, 'refund.succeeded') },
  'refund.failed': {
    what: 'a 10.13 BRL card payment refunded in full (an amount ending in 13 fails)',
    run: (ctx) => refundOf(ctx, 10.13, 'refund.failed'),
  },
};

/** Event type names accepted for scenarios named differently. */
const ALIASES: Readonly<Record<string, string>> = { 'payment.pending_3ds': 'payment.pending' };

export const triggerUsage = () => `Usage: npm run cli -- trigger EVENT [--json]   EVENT: ${Object.keys(SCENARIOS).join(', ')}`;

export function triggerList(): string {
  const width = Math.max(...Object.keys(SCENARIOS).map((k) => k.length));
  return Object.entries(SCENARIOS)
    .map(([name, s]) => `${name.padEnd(width)}  ${s.what}`)
    .join('\n');
}

/** Polls the events API until the event about `objectId` is listed; its id, or null at the deadline. */
export async function waitForEvent(client: ApiClient, type: string, objectId: string, waitMs: number, signal: AbortSignal) {
  const end = Date.now() + waitMs;
  // The list is filtered by the object for payments, payouts, sessions, mandates and disputes, and by type only
  // without digits (payment.pending_3ds is refused); what it is not filtered by is matched here.
  const query: Record<string, string> = {
    ...(/^(pi|po|cs|md|dsp)_/.test(objectId) ? { object_id: objectId } : {}),
    ...(/^[a-z_]+(\.[a-z_]+)+$/.test(type) ? { type } : {}),
  };
  while (!signal.aborted) {
    const listed = await recentEvents(client, '', { maxPages: 1, query, signal });
    const found = listed.find((e) => e.object_id === objectId && e.type === type);
    if (found) return found.event_id;
    if (Date.now() > end) return null;
    await sleep(500, signal);
  }
  return null;
}

export interface TriggerOptions {
  readonly client: ApiClient;
  readonly event: string | undefined;
  readonly json: boolean;
  readonly signal: AbortSignal;
  readonly io: CliIo;
}

/** The scenario an EVENT argument names (an emitted type such as payment.pending_3ds works too), or undefined. */
export const scenarioName = (event: string | undefined) => {
  const name = event && (ALIASES[event] ?? event);
  return name && SCENARIOS[name] ? name : undefined;
};

export const unknownTrigger = (event: string | undefined) => `${event ? `Unknown event "${event}". ` : 'Missing EVENT. '}${triggerUsage()}`;

/** 0 when the event is in the events API; 1 on an API error or timeout; 2 for an unknown event; 130 when interrupted. */
export async function runTrigger(o: TriggerOptions): Promise<number> {
  const name = scenarioName(o.event);
  const scenario = name && SCENARIOS[name];
  if (!name || !scenario) {
    o.io.err(unknownTrigger(o.event));
    return 2;
  }
  const objects: Record<string, string> = {};
  const line = (k: string, v: string) => `  ${k.padEnd(20)} ${v}`;
  const ctx: Ctx = {
    client: o.client,
    signal: o.signal,
    note: (l) => o.io.err(l),
    object: (k, v) => {
      objects[k] = v;
      if (!o.json) o.io.out(line(k, v));
    },
  };
  if (!o.json) o.io.out(`Triggering ${name}: ${scenario.what}`);
  try {
    const created = await scenario.run(ctx);
    const eventId = await waitForEvent(o.client, created.event, created.objectId, created.waitMs, o.signal);
    if (o.signal.aborted) return 130;
    if (o.json) o.io.out(JSON.stringify({ trigger: name, ...objects, event: created.event, event_id: eventId }, null, 2));
    else if (eventId) o.io.out(line('event_id', `${eventId} (${created.event})`));
    if (!eventId) {
      o.io.err(`${created.event} for ${created.objectId} is not in GET /api/v1/events after ${created.waitMs / 1000} s.`);
      return 1;
    }
    return 0;
  } catch (e) {
    if (o.signal.aborted) return 130;
    o.io.err(e instanceof ApiError ? `API error: ${e.message}` : `Error: ${(e as Error).message}`);
    return 1;
  }
}
