/**
 * A fake Adyen Checkout v71 for the tests and the local live stage: HTTPS (a CA made at start, given to our
 * client as ca_pem), X-API-Key, Idempotency-Key semantics (the same key and body answer the same; the same key
 * with another body is 422 errorCode 704), and the /payments, /payments/details, /payments/{psp}/refunds and
 * /cancels endpoints, and tokenization (a card stored by a zero-value authorisation, charged by ContAuth, listed and
 * deleted at /storedPaymentMethods: stored-methods.ts), and the Disputes API v30 under /ca/services/DisputeService/v30
 * (disputes.ts: disputes a test opens, their defense reasons and documents, defend and accept). Every request body
 * is checked against our schemas: a mismatch is answered 422 and recorded in `violations`, which the tests assert
 * empty. It sends standard notifications signed with Adyen's HMAC algorithm (or forged, replayed, out of order,
 * duplicated on demand), and fails on demand (a status, a hang, a call carried out with its answer lost).
 */
import { readBody } from '../fake-http';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import * as z from '../../../shared/domain/zod';
import {
  cancelRequestSchema,
  paymentDetailsRequestSchema,
  paymentRequestSchema,
  pspReferenceSchema,
  refundRequestSchema,
  type NotificationItem,
  type PaymentRequest,
} from '../../../shared/adapters/providers/adyen/adyen.schemas';
import { hmacOf } from '../../../shared/adapters/providers/adyen/adyen.hmac';
import { buildBoleto, formatTypeableLine } from '../../../shared/domain/payments/boleto';
import { makeCertificates } from '../fake-psp/certificates';
import { connectionGate } from '../fake-dlocal/cards';
import { AdyenError, pspRef } from './adyen-error';
import { tokenization, tokenizationViolations, type StoredChargeScript, type StoredMethod } from './stored-methods';
import type { AdyenDisputeOp } from '../../../shared/adapters/providers/adyen/adyen.client';
import { DISPUTES_PATH } from '../../../shared/adapters/providers/adyen/adyen.endpoints';
import { disputeOpOf, disputeService, type FakeDispute, type OpenDispute } from './disputes';

export type { FakeDispute, FakeDefenseReason, OpenDispute } from './disputes';
export type FakeAdyenOp = 'payments' | 'paymentDetails' | 'refunds' | 'cancels' | 'storedPaymentMethods' | AdyenDisputeOp;
/** A status (a 4xx waits for a request that is no replay), no answer at all, or the call carried out and its answer lost. */
export type Fault = { status: number } | { hang: true } | { lost: true };

/** What /payments answers for the next card payment (default: Authorised). */
export type CardScript =
  | { resultCode: 'Authorised' }
  | { resultCode: 'Refused'; refusalReasonCode: string; refusalReason?: string }
  | { resultCode: 'RedirectShopper' | 'ChallengeShopper' | 'IdentifyShopper' }
  | { resultCode: 'Pending' | 'Received' };

export interface AdyenPayment {
  readonly pspReference: string;
  readonly reference: string;
  readonly request: PaymentRequest;
  resultCode: string;
  /** The redirectResult the 3DS page hands back, when the payment awaits authentication. */
  redirectResult?: string;
  authenticated?: boolean;
  cancelled?: boolean;
}

export interface FakeAdyen {
  readonly baseUrl: string;
  /** The Disputes API root (…/ca/services/DisputeService/v30), which adyenConfig() gives as disputes_base_url. */
  readonly disputesBaseUrl: string;
  readonly caPem: string;
  readonly apiKey: string;
  readonly merchantAccount: string;
  readonly hmacKeyHex: string;
  adyenConfig(over?: Record<string, unknown>): Record<string, unknown>;
  readonly requests: ReadonlyArray<{ path: string; body: unknown; headers: IncomingMessage['headers']; at: number }>;
  readonly violations: string[];
  readonly cancels: ReadonlyArray<{ paymentReference: string; pspReference: string }>;
  readonly refunds: ReadonlyArray<{ paymentPspReference: string; reference: string; pspReference: string; value: number }>;
  payment(reference: string): AdyenPayment | undefined;
  nextCard(script: CardScript): void;
  /** How the next ContAuth charge on a stored card answers (else by amount: STORED_CHARGE_DECLINES, else Authorised). */
  nextStoredCharge(script: StoredChargeScript): void;
  /** Every stored card (token), disabled ones included. */
  storedMethods(): readonly StoredMethod[];
  failNext(op: FakeAdyenOp, how: Fault, times?: number): void;
  /** Drops every scripted fault not met yet; how many. */
  clearFaults(): number;
  /** The shopper finishes (or fails) authentication on Adyen's page: the redirectResult our return URL receives. */
  authenticate(reference: string, ok: boolean): string;
  /** Where notifications are posted (our /providers/adyen/notifications). */
  setNotificationUrl(url: string): void;
  /** A notification item for a payment, signed with the real algorithm unless `sign` says otherwise. */
  item(
    over: Partial<NotificationItem> & Pick<NotificationItem, 'eventCode' | 'merchantReference'>,
    sign?: 'good' | 'forged' | 'none',
  ): NotificationItem;
  /** Opens a dispute (a chargeback of a payment): its defense reasons default by reason code (fraud or other). */
  openDispute(o: OpenDispute): FakeDispute;
  /** A dispute as the fake holds it: supplied documents, the reason it was defended with, accepted, closed. */
  dispute(pspReference: string): FakeDispute | undefined;
  /** Adyen's no to the next `times` Disputes API calls of `op`: `success: false` with `errorMessage`, nothing changed. */
  refuseNextDispute(op: AdyenDisputeOp, errorMessage: string, times?: number): void;
  /**
   * A notice for a dispute (NOTIFICATION_OF_CHARGEBACK, CHARGEBACK, CHARGEBACK_REVERSED, SECOND_CHARGEBACK,
   * PREARBITRATION_LOST, DISPUTE_DEFENSE_PERIOD_ENDED…): the dispute's pspReference, the payment's as originalReference
   * (and its merchantReference and amount when the fake holds it), chargebackReasonCode and defensePeriodEndsAt.
   */
  disputeItem(
    pspReference: string,
    eventCode: string,
    over?: Partial<NotificationItem>,
    sign?: 'good' | 'forged' | 'none',
  ): NotificationItem;
  /** Posts items as one standard notification (a dispute's ending notice also ends it here); answers our status and body. */
  notify(items: readonly NotificationItem[]): Promise<{ status: number; body: string }>;
  /** Every connection refused (`reset` before a byte, `closed` listener) until null (the fake dLocal's gate). */
  refuseConnections(mode: 'reset' | 'closed' | null): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeAdyen(opts: { hangMs?: number } = {}): Promise<FakeAdyen> {
  const certs = await makeCertificates();
  const apiKey = `AQE-${randomBytes(24).toString('base64url')}`;
  const merchantAccount = 'LatamPaymentsECOM';
  const hmacKeyHex = randomBytes(32).toString('hex').toUpperCase();
  const requests: Array<{ path: string; body: unknown; headers: IncomingMessage['headers']; at: number }> = [];
  const violations: string[] = [];
  const payments = new Map<string, AdyenPayment>();
  const byPsp = new Map<string, AdyenPayment>();
  const idempotency = new Map<string, { body: string; answer: [number, unknown] }>();
  const cancels: Array<{ paymentReference: string; pspReference: string }> = [];
  const refunds: Array<{ paymentPspReference: string; reference: string; pspReference: string; value: number }> = [];
  const scripts: CardScript[] = [];

  const faults = new Map<FakeAdyenOp, Fault[]>();
  const sockets = new Set<Socket>();
  const hung = new Set<ServerResponse>();
  let notificationUrl: string | null = null;
  let origin = '';

  const check = <S extends z.ZodMiniType>(what: string, schema: S, value: unknown): z.infer<S> => {
    const r = z.safeParse(schema, value);
    if (r.success) return r.data;
    const detail = r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    violations.push(`${what}: ${detail}`);
    throw new AdyenError(422, '702', 'validation', detail);
  };
  const disputes = disputeService({
    merchantAccount,
    apiKey,
    check,
    violations,
    checkAnswer(what, schema, value) {
      const r = z.safeParse(schema, value);
      if (!r.success) violations.push(`${what}: ${r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ')}`);
    },
  });
  const tokens = tokenization({
    merchantAccount,
    apiKey,
    check,
    remember(body, resultCode) {
      const p: AdyenPayment = { pspReference: pspRef(), reference: body.reference, request: body, resultCode };
      payments.set(body.reference, p);
      byPsp.set(p.pspReference, p);
      return { pspReference: p.pspReference, count: byPsp.size };
    },
  });

  function answerPayment(body: PaymentRequest): [number, unknown] {
    if (body.merchantAccount !== merchantAccount) throw new AdyenError(403, '901', 'security', 'Invalid Merchant Account');
    if (body.paymentMethod.type === 'oxxo' || body.paymentMethod.type === 'boletobancario') {
      const boleto = body.paymentMethod.type === 'boletobancario';
      // What Adyen requires of a boleto: the payer's name, CPF/CNPJ, billing address and a due date.
      if (boleto && (!body.socialSecurityNumber || !body.billingAddress || !body.shopperName || !body.deliveryDate)) {
        violations.push('POST /payments boletobancario: socialSecurityNumber, billingAddress, shopperName and deliveryDate are required');
        throw new AdyenError(422, '137', 'validation', 'Invalid amount or missing boleto fields');
      }
      const p: AdyenPayment = { pspReference: pspRef(), reference: body.reference, request: body, resultCode: 'PresentToShopper' };
      payments.set(body.reference, p);
      byPsp.set(p.pspReference, p);
      const voucherRef = boleto
        ? formatTypeableLine(
            buildBoleto({
              bankCode: '033',
              amountMinor: body.amount.value,
              dueDate: new Date(body.deliveryDate!),
              freeField: `9${p.pspReference.replace(/\D/g, '')}`.padEnd(25, '0').slice(0, 25),
            }).typeableLine,
          )
        : String(Date.now()).padEnd(30, '0').slice(0, 30);
      return [
        200,
        {
          resultCode: 'PresentToShopper',
          pspReference: p.pspReference,
          merchantReference: body.reference,
          action: {
            type: 'voucher',
            paymentMethodType: body.paymentMethod.type,
            reference: voucherRef,
            alternativeReference: voucherRef.slice(0, 14),
            downloadUrl: `${origin}/voucher/${body.reference}.pdf`,
            expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString(),
            initialAmount: body.amount,
            totalAmount: body.amount,
            merchantName: 'LatamPayments',
          },
        },
      ];
    }
    const broken = tokenizationViolations(body);
    if (broken.length) {
      for (const v of broken) violations.push(`POST /payments: ${v}`);
      throw new AdyenError(422, '702', 'validation', broken.join('; '));
    }
    if ('storedPaymentMethodId' in body.paymentMethod) return tokens.answerCharge(body, body.paymentMethod.storedPaymentMethodId);
    const script = scripts.shift() ?? { resultCode: 'Authorised' };
    const p: AdyenPayment = { pspReference: pspRef(), reference: body.reference, request: body, resultCode: script.resultCode };
    payments.set(body.reference, p);
    byPsp.set(p.pspReference, p);
    const base = { pspReference: p.pspReference, merchantReference: body.reference, amount: body.amount };
    switch (script.resultCode) {
      case 'Authorised':
        return [200, { ...base, resultCode: 'Authorised', ...tokens.tokenized(body, { authCode: String(100000 + byPsp.size) }) }];
      case 'Refused':
        return [
          200,
          { ...base, resultCode: 'Refused', refusalReasonCode: script.refusalReasonCode, refusalReason: script.refusalReason ?? 'Refused' },
        ];
      case 'RedirectShopper':
      case 'ChallengeShopper':
      case 'IdentifyShopper':
        return [
          200,
          {
            resultCode: script.resultCode,
            action: {
              type: 'redirect',
              method: 'GET',
              url: `${origin}/hpp/3ds/${body.reference}`,
              paymentMethodType: 'scheme',
            },
          },
        ];
      default:
        return [200, { ...base, resultCode: script.resultCode }];
    }
  }

  function route(path: string, text: string, req: IncomingMessage): [number, unknown] {
    if (req.headers['x-api-key'] !== apiKey) throw new AdyenError(401, '000', 'security', 'HTTP Status Response - Unauthorized');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      violations.push(`${path}: a body that is not JSON`);
      throw new AdyenError(422, '702', 'validation', 'not JSON');
    }
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(key)) violations.push(`${path}: no or bad Idempotency-Key`);
    const ikey = `${String(key)}`;
    const seen = idempotency.get(ikey);
    if (seen) {
      if (seen.body !== text) {
        violations.push(`${path}: Idempotency-Key ${ikey} reused with another body`);
        throw new AdyenError(422, '704', 'validation', 'request already processed or in progress');
      }
      return seen.answer;
    }
    let answer: [number, unknown];
    let m: RegExpExecArray | null;
    if (path === '/payments') answer = answerPayment(check('POST /payments', paymentRequestSchema, body));
    else if (path === '/payments/details') {
      const d = check('POST /payments/details', paymentDetailsRequestSchema, body);
      const p = [...payments.values()].find((x) => x.redirectResult === d.details.redirectResult);
      if (!p) throw new AdyenError(422, '15_002', 'validation', 'Invalid redirectResult');
      p.resultCode = p.authenticated ? 'Authorised' : 'Refused';
      const base = { pspReference: p.pspReference, merchantReference: p.reference, amount: p.request.amount };
      answer = p.authenticated
        ? [200, { ...base, resultCode: 'Authorised', ...tokens.tokenized(p.request, { authCode: '3DSOK1' }) }]
        : [200, { ...base, resultCode: 'Refused', refusalReasonCode: '11', refusalReason: '3D Not Authenticated' }];
    } else if ((m = /^\/payments\/([^/]+)\/refunds$/.exec(path))) {
      const psp = check('paymentPspReference', pspReferenceSchema, decodeURIComponent(m[1] as string));
      const r = check('POST /payments/{psp}/refunds', refundRequestSchema, body);
      if (!byPsp.has(psp)) throw new AdyenError(422, '167', 'validation', 'Original pspReference required for this operation');
      const entry = { paymentPspReference: psp, reference: r.reference, pspReference: pspRef(), value: r.amount.value };
      refunds.push(entry);
      answer = [
        201,
        {
          merchantAccount,
          paymentPspReference: psp,
          pspReference: entry.pspReference,
          reference: r.reference,
          status: 'received',
          amount: r.amount,
        },
      ];
    } else if (path === '/cancels') {
      const c = check('POST /cancels', cancelRequestSchema, body);
      const entry = { paymentReference: c.paymentReference, pspReference: pspRef() };
      cancels.push(entry);
      const p = payments.get(c.paymentReference);
      if (p) p.cancelled = true;
      answer = [201, { merchantAccount, paymentReference: c.paymentReference, pspReference: entry.pspReference, status: 'received' }];
    } else throw new AdyenError(404, '000', 'internal', `no POST ${path}`);
    idempotency.set(ikey, { body: text, answer });
    return answer;
  }

  const opOf = (path: string): FakeAdyenOp | null =>
    path === '/payments'
      ? 'payments'
      : path === '/payments/details'
        ? 'paymentDetails'
        : path === '/cancels'
          ? 'cancels'
          : /\/refunds$/.test(path)
            ? 'refunds'
            : path.startsWith('/storedPaymentMethods')
              ? 'storedPaymentMethods'
              : null;

  const server: Server = createServer({ key: certs.server.keyPem, cert: certs.server.certPem }, (req, res) => {
    void (async () => {
      const text = await readBody(req);
      const url = new URL(req.url ?? '/', 'https://fake-adyen');
      if (url.pathname.startsWith('/hpp/3ds/')) {
        // The issuer's challenge: the shopper completes it and is sent back to the returnUrl with a redirectResult.
        const p = payments.get(decodeURIComponent(url.pathname.slice('/hpp/3ds/'.length)));
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        if (!p) return res.end('<!doctype html><html lang="en"><title>3-D Secure</title><body>Unknown payment</body></html>');
        const back = new URL(p.request.returnUrl);
        back.searchParams.set('redirectResult', fake.authenticate(p.reference, true));
        const href = back.toString().replace(/&/g, '&amp;').replace(/"/g, '&quot;');
        return res.end(
          '<!doctype html><html lang="en"><link rel="icon" href="data:,"><title>3-D Secure</title>' +
            `<body><main><h1>Adyen 3-D Secure (fake)</h1><a id="complete" href="${href}">Complete authentication</a></main></body></html>`,
        );
      }
      const disputeOp = url.pathname.startsWith(`${DISPUTES_PATH}/`) ? disputeOpOf(url.pathname.slice(DISPUTES_PATH.length)) : null;
      const path = disputeOp ? `/${disputeOp}` : url.pathname.replace(/^\/v71/, '');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      requests.push({ path, body, headers: req.headers, at: Date.now() });
      const stored = path.startsWith('/storedPaymentMethods') && (req.method === 'GET' || req.method === 'DELETE');
      if (req.method !== 'POST' && !stored) {
        res.writeHead(405);
        return res.end();
      }
      const op = disputeOp ?? opOf(path);
      // Adyen answers a replay (a key it has carried out, the same body) from its idempotency store: a scripted refusal
      // (a 4xx) is a decision on a new request, so it waits for the next one (a 5xx, a hang or a lost answer may meet a
      // replay, as they happen before Adyen's idempotency layer answers).
      const next = op ? faults.get(op)?.[0] : undefined;
      const key = req.headers['idempotency-key'];
      const replay =
        typeof key === 'string' && (disputeOp ? disputes.isReplay(disputeOp, text, key) : !stored && idempotency.get(key)?.body === text);
      const waits = next !== undefined && 'status' in next && next.status < 500 && replay;
      const fault = op && !waits ? faults.get(op)?.shift() : undefined;
      if (fault && 'hang' in fault) {
        hung.add(res);
        setTimeout(() => res.destroy(), opts.hangMs ?? 60_000).unref();
        return;
      }
      const send = (status: number, b: unknown) => {
        if (res.destroyed) return;
        if (status === 204) {
          res.writeHead(204);
          return res.end();
        }
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(b));
      };
      if (fault && 'status' in fault) return send(fault.status, new AdyenError(fault.status, '000', 'internal', 'scripted failure').body());
      try {
        const [status, answer] = disputeOp
          ? disputes.route(disputeOp, text, req)
          : stored
            ? tokens.route(req.method as string, path, url.searchParams, req)
            : route(path, text, req);
        if (fault) return void res.destroy(); // lost: carried out, never answered
        send(status, answer);
      } catch (e) {
        if (fault) return void res.destroy(); // carried out (refused), its answer lost all the same
        if (e instanceof AdyenError) return send(e.status, e.body());
        send(500, { status: 500, errorCode: '000', errorType: 'internal', message: String(e) });
      }
    })();
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  origin = `https://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const refuseConnections = connectionGate(server, sockets, () => Number(new URL(origin).port));

  const fake: FakeAdyen = {
    baseUrl: `${origin}/v71`,
    disputesBaseUrl: `${origin}${DISPUTES_PATH}`,
    caPem: certs.ca.certPem,
    apiKey,
    merchantAccount,
    hmacKeyHex,
    adyenConfig: (over = {}) => ({
      base_url: `${origin}/v71`,
      api_key: apiKey,
      merchant_account: merchantAccount,
      hmac_key_hex: hmacKeyHex,
      disputes_base_url: `${origin}${DISPUTES_PATH}`,
      ca_pem: certs.ca.certPem,
      ...over,
    }),
    requests,
    violations,
    cancels,
    refunds,
    payment: (reference) => payments.get(reference),
    nextCard: (script) => void scripts.push(script),
    nextStoredCharge: (script) => tokens.vault.nextCharge(script),
    storedMethods: () => tokens.vault.all(),
    failNext(op, how, times = 1) {
      faults.set(op, [...(faults.get(op) ?? []), ...Array.from({ length: times }, () => how)]);
    },
    clearFaults() {
      const n = [...faults.values()].reduce((sum, f) => sum + f.length, 0);
      faults.clear();
      return n;
    },
    authenticate(reference, ok) {
      const p = payments.get(reference);
      if (!p) throw new Error(`fake Adyen: no payment ${reference}`);
      p.authenticated = ok;
      p.redirectResult = randomBytes(48).toString('base64url');
      return p.redirectResult;
    },
    setNotificationUrl(url) {
      notificationUrl = url;
    },
    item(over, sign = 'good') {
      const p = payments.get(over.merchantReference);
      const unsigned: NotificationItem = {
        success: 'true',
        pspReference: p?.pspReference ?? pspRef(),
        merchantAccountCode: merchantAccount,
        amount: p ? { currency: p.request.amount.currency, value: p.request.amount.value } : { currency: 'BRL', value: 0 },
        eventDate: new Date().toISOString(),
        ...over,
        ...(p && over.eventCode === 'AUTHORISATION' && over.success !== 'false'
          ? { additionalData: { ...tokens.storedBy(p.request), ...over.additionalData } }
          : {}),
      };
      const { additionalData: extra, ...fields } = unsigned;
      if (sign === 'none') return { ...fields, additionalData: { ...extra } };
      const key = sign === 'good' ? hmacKeyHex : randomBytes(32).toString('hex');
      return { ...fields, additionalData: { ...extra, hmacSignature: hmacOf(fields, key) } };
    },
    openDispute: (o) => disputes.open(o),
    dispute: (pspReference) => disputes.get(pspReference),
    refuseNextDispute: (op, errorMessage, times) => disputes.refuseNext(op, errorMessage, times),
    disputeItem(pspReference, eventCode, over = {}, sign = 'good') {
      const d = disputes.get(pspReference);
      if (!d) throw new Error(`fake Adyen: no dispute ${pspReference}`);
      const p = byPsp.get(d.paymentPspReference);
      return fake.item(
        {
          eventCode,
          merchantReference: p?.reference ?? '',
          pspReference,
          originalReference: d.paymentPspReference,
          ...over,
          additionalData: {
            chargebackReasonCode: d.reasonCode,
            defensePeriodEndsAt: d.defensePeriodEndsAt,
            ...(eventCode === 'CHARGEBACK' && d.accepted ? { disputeStatus: 'Accepted' } : {}),
            ...over.additionalData,
          },
        },
        sign,
      );
    },
    async notify(items) {
      if (!notificationUrl) throw new Error('fake Adyen: no notification URL');
      // Adyen's own notices (signed with the key) end a dispute on its side; a forged one is not Adyen's.
      for (const { additionalData, ...fields } of items)
        if (additionalData?.hmacSignature === hmacOf(fields, hmacKeyHex)) disputes.noticed(fields.pspReference, fields.eventCode);
      const r = await fetch(notificationUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ live: 'false', notificationItems: items.map((i) => ({ NotificationRequestItem: i })) }),
      });
      return { status: r.status, body: await r.text() };
    },
    refuseConnections,
    async close() {
      for (const res of hung) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return fake;
}
