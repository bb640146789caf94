/**
 * The API's resources, named as the API names them (stripe-node's layout): `client.payouts.create(...)`,
 * `client.payments.refunds.list(paymentId)`. Every method takes its per-call RequestOptions last.
 */
import type { RequestOptions, RequestSpec, Transport, WithResponse } from './http.ts';
import { cursorList, singlePage, type ListPromise } from './pagination.ts';
import type * as T from './types.ts';

const seg = encodeURIComponent;

abstract class Resource {
  constructor(protected readonly transport: Transport) {}
  protected get<R>(path: string, query: RequestSpec['query'] | undefined, opts?: RequestOptions): Promise<WithResponse<R>> {
    return this.transport.request<R>({ method: 'GET', path, query }, opts);
  }
  /** A create or change: sent with an X-Idempotency-Key (given or generated), so retrying it is safe. */
  protected post<R>(path: string, body: unknown, opts?: RequestOptions): Promise<WithResponse<R>> {
    return this.transport.request<R>({ method: 'POST', path, body, idempotent: true }, opts);
  }
}

class CheckoutSessions extends Resource {
  create(params: T.CheckoutSessionCreateParams, opts?: RequestOptions): Promise<WithResponse<T.CheckoutSessionCreated>> {
    return this.post('/api/v1/checkout', params, opts);
  }
  retrieve(sessionId: string, opts?: RequestOptions): Promise<WithResponse<T.CheckoutSession>> {
    return this.get(`/api/v1/checkout/${seg(sessionId)}`, undefined, opts);
  }
  cancel(sessionId: string, opts?: RequestOptions): Promise<WithResponse<T.CheckoutSessionCancelled>> {
    return this.post(`/api/v1/checkout/${seg(sessionId)}/cancel`, undefined, opts);
  }
}

export class Checkout {
  readonly sessions: CheckoutSessions;
  constructor(transport: Transport) {
    this.sessions = new CheckoutSessions(transport);
  }
}

class PaymentRefunds extends Resource {
  create(paymentId: string, params: T.RefundCreateParams = {}, opts?: RequestOptions): Promise<WithResponse<T.Refund>> {
    return this.post(`/api/v1/payments/${seg(paymentId)}/refunds`, params, opts);
  }
  /** The payment's refunds (one page: a payment has few); `await` it for the payment's refund summary. */
  list(paymentId: string, opts?: RequestOptions): ListPromise<WithResponse<T.PaymentRefundList>, T.PaymentRefund> {
    return singlePage(
      () => this.get<T.PaymentRefundList>(`/api/v1/payments/${seg(paymentId)}/refunds`, undefined, opts),
      (page) => page.data,
    );
  }
}

export class Payments extends Resource {
  readonly refunds: PaymentRefunds;
  constructor(
    transport: Transport,
    private readonly merchantId: string | undefined,
  ) {
    super(transport);
    this.refunds = new PaymentRefunds(transport);
  }
  /** A direct payment (PIX or card). */
  create(params: T.PaymentCreateParams, opts?: RequestOptions): Promise<WithResponse<T.PaymentCreated>> {
    return this.post('/cashier/cashier/payment', params, opts);
  }
  /** The payment's status. Its path carries the merchant id: the client's `merchantId`, or `params.merchant_id`. */
  retrieve(paymentId: string, params: { merchant_id?: string } = {}, opts?: RequestOptions): Promise<WithResponse<T.Payment>> {
    const merchantId = params.merchant_id ?? this.merchantId;
    if (!merchantId) {
      return Promise.reject(new TypeError('payments.retrieve needs the merchant id: new LatamPayments({ merchantId }) or { merchant_id }'));
    }
    return this.get(`/cashier/cashier/status/${seg(merchantId)}/${seg(paymentId)}`, undefined, opts);
  }
}

export class Refunds extends Resource {
  retrieve(refundId: string, opts?: RequestOptions): Promise<WithResponse<T.Refund>> {
    return this.get(`/api/v1/refunds/${seg(refundId)}`, undefined, opts);
  }
}

class PayoutMethods extends Resource {
  /** The payout methods available to the merchant (one page). */
  list(
    params: T.PayoutMethodListParams = {},
    opts?: RequestOptions,
  ): ListPromise<WithResponse<T.PayoutMethodList>, T.PayoutMethodList['methods'][number]> {
    return singlePage(
      () => this.get<T.PayoutMethodList>('/api/v1/payout/methods/available', params, opts),
      (page) => page.methods,
    );
  }
}

export class Payouts extends Resource {
  readonly methods: PayoutMethods;
  constructor(transport: Transport) {
    super(transport);
    this.methods = new PayoutMethods(transport);
  }
  create(params: T.PayoutCreateParams, opts?: RequestOptions): Promise<WithResponse<T.PayoutCreated>> {
    return this.post('/api/v1/payout', params, opts);
  }
  /**
   * Up to 100 payouts in one request: each answered on its own at its index (made, with payout_id and status, or
   * refused, with error). Pass an idempotencyKey: a retry then makes none twice.
   */
  createBatch(params: T.PayoutBatchCreateParams, opts?: RequestOptions): Promise<WithResponse<T.PayoutBatch>> {
    return this.post('/api/v1/payouts/batch', params, opts);
  }
  retrieve(payoutId: string, opts?: RequestOptions): Promise<WithResponse<T.Payout>> {
    return this.get(`/api/v1/payout/${seg(payoutId)}`, undefined, opts);
  }
  /** Newest first; `for await` follows the cursor through every page. */
  list(params: T.PayoutListParams = {}, opts?: RequestOptions): ListPromise<WithResponse<T.PayoutListPage>, T.PayoutListItem> {
    return cursorList((cursor) => this.get<T.PayoutListPage>('/api/v1/payout', { ...params, starting_after: cursor }, opts));
  }
  cancel(payoutId: string, opts?: RequestOptions): Promise<WithResponse<T.PayoutCancelled>> {
    return this.post(`/api/v1/payout/${seg(payoutId)}/cancel`, undefined, opts);
  }
  /** Checks a beneficiary for a method before paying it: `valid: false` with the `errors` by field when it would be refused. */
  validate(params: T.PayoutValidateParams, opts?: RequestOptions): Promise<WithResponse<T.PayoutValidation>> {
    // No side effect, so retried like a read (the API takes no idempotency key here).
    return this.transport.request({ method: 'POST', path: '/api/v1/payout/validate-beneficiary', body: params, safe: true }, opts);
  }
}

class MandateCharges extends Resource {
  /** A payment under an active mandate (one per billing cycle): PIX pending until its due date, card decided at once. */
  create(mandateId: string, params: T.MandateChargeCreateParams, opts?: RequestOptions): Promise<WithResponse<T.MandateCharge>> {
    return this.post(`/api/v1/mandates/${seg(mandateId)}/charges`, params, opts);
  }
}

export class Mandates extends Resource {
  readonly charges: MandateCharges;
  constructor(transport: Transport) {
    super(transport);
    this.charges = new MandateCharges(transport);
  }
  /** A mandate pending the payer's approval: show the payer `approval` (a PIX QR, a request to their bank, or a URL). */
  create(params: T.MandateCreateParams, opts?: RequestOptions): Promise<WithResponse<T.Mandate>> {
    return this.post('/api/v1/mandates', params, opts);
  }
  retrieve(mandateId: string, opts?: RequestOptions): Promise<WithResponse<T.Mandate>> {
    return this.get(`/api/v1/mandates/${seg(mandateId)}`, undefined, opts);
  }
  /** Newest first, filtered by status; `for await` follows the cursor through every page. */
  list(params: T.MandateListParams = {}, opts?: RequestOptions): ListPromise<WithResponse<T.MandateListPage>, T.MandateListItem> {
    return cursorList((cursor) => this.get<T.MandateListPage>('/api/v1/mandates', { ...params, starting_after: cursor }, opts));
  }
  /** Ends the mandate at the provider and here (mandate.cancelled, cancelled_by merchant): no charge can follow. */
  cancel(mandateId: string, opts?: RequestOptions): Promise<WithResponse<T.Mandate>> {
    return this.post(`/api/v1/mandates/${seg(mandateId)}/cancel`, undefined, opts);
  }
}

export class Disputes extends Resource {
  /** Newest first, filtered by status or payment; `for await` follows the cursor through every page. */
  list(params: T.DisputeListParams = {}, opts?: RequestOptions): ListPromise<WithResponse<T.DisputeListPage>, T.DisputeListItem> {
    return cursorList((cursor) => this.get<T.DisputeListPage>('/api/v1/disputes', { ...params, starting_after: cursor }, opts));
  }
  /** The dispute; while it needs a response, with the `defense_reasons` (and their documents) its provider lists now. */
  retrieve(disputeId: string, opts?: RequestOptions): Promise<WithResponse<T.Dispute>> {
    return this.get(`/api/v1/disputes/${seg(disputeId)}`, undefined, opts);
  }
  /**
   * Stages evidence: a defense reason the dispute lists, its documents (PDF, JPEG, TIFF as base64) and text (a PIX
   * MED's defense is its text). It replaces what was staged; nothing reaches the provider until `submit`.
   */
  updateEvidence(disputeId: string, params: T.DisputeEvidenceParams, opts?: RequestOptions): Promise<WithResponse<T.Dispute>> {
    return this.post(`/api/v1/disputes/${seg(disputeId)}/evidence`, params, opts);
  }
  /** Sends the staged evidence to the provider: under_review (dispute.updated) until it is won or lost. */
  submit(disputeId: string, opts?: RequestOptions): Promise<WithResponse<T.Dispute>> {
    return this.post(`/api/v1/disputes/${seg(disputeId)}/submit`, undefined, opts);
  }
  /** Gives up the disputed amount: the dispute closes, accepted. */
  accept(disputeId: string, opts?: RequestOptions): Promise<WithResponse<T.Dispute>> {
    return this.post(`/api/v1/disputes/${seg(disputeId)}/accept`, undefined, opts);
  }
}

class BalanceTransactions extends Resource {
  /** The ledger, newest first; `for await` follows the cursor through every page. */
  list(
    params: T.BalanceTransactionListParams = {},
    opts?: RequestOptions,
  ): ListPromise<WithResponse<T.BalanceTransactionListPage>, T.BalanceTransaction> {
    return cursorList((cursor) =>
      this.get<T.BalanceTransactionListPage>('/api/v1/balance/transactions', { ...params, starting_after: cursor }, opts),
    );
  }
}

export class BalanceResource extends Resource {
  readonly transactions: BalanceTransactions;
  constructor(transport: Transport) {
    super(transport);
    this.transactions = new BalanceTransactions(transport);
  }
  retrieve(opts?: RequestOptions): Promise<WithResponse<T.Balance>> {
    return this.get('/api/v1/balance', undefined, opts);
  }
}

export class Methods extends Resource {
  /** The payment methods (one page), filtered by country, currency, payment_type. */
  list(params: T.MethodListParams = {}, opts?: RequestOptions): ListPromise<WithResponse<T.MethodList>, T.PaymentMethod> {
    return singlePage(
      () => this.get<T.MethodList>('/api/v1/methods', params, opts),
      (page) => page.methods,
    );
  }
  retrieve(methodCode: string, params: T.MethodRetrieveParams = {}, opts?: RequestOptions): Promise<WithResponse<T.PaymentMethod>> {
    return this.get(`/api/v1/methods/${seg(methodCode)}`, params, opts);
  }
}

export class Events extends Resource {
  /** Newest first; `for await` follows the cursor through every page. */
  list(params: T.EventListParams = {}, opts?: RequestOptions): ListPromise<WithResponse<T.EventListPage>, T.EventSummary> {
    return cursorList((cursor) => this.get<T.EventListPage>('/api/v1/events', { ...params, cursor }, opts));
  }
  /** The event with its payload and every delivery attempt. */
  retrieve(eventId: string, opts?: RequestOptions): Promise<WithResponse<T.Event>> {
    return this.get(`/api/v1/events/${seg(eventId)}`, undefined, opts);
  }
  /** Queues the event for delivery again. */
  resend(eventId: string, opts?: RequestOptions): Promise<WithResponse<T.EventResent>> {
    return this.post(`/api/v1/events/${seg(eventId)}/resend`, undefined, opts);
  }
}

class SandboxPayments extends Resource {
  /** Test mode: settles a payment as the customer or provider would (success, failed, expired...). */
  simulate(paymentId: string, params: T.PaymentSimulateParams, opts?: RequestOptions): Promise<WithResponse<T.PaymentSimulated>> {
    return this.post(`/api/v1/sandbox/payments/${seg(paymentId)}/simulate`, params, opts);
  }
}

class SandboxMandates extends Resource {
  /** Test mode: the payer approves, rejects or lets expire a pending mandate, or cancels an active one (payer_cancel). */
  simulate(mandateId: string, params: T.MandateSimulateParams, opts?: RequestOptions): Promise<WithResponse<T.Mandate>> {
    return this.post(`/api/v1/sandbox/mandates/${seg(mandateId)}/simulate`, params, opts);
  }
}

class SandboxDisputes extends Resource {
  /**
   * Test mode: the payer's bank disputes a successful test payment: a card chargeback (the amount withdrawn from the
   * test balance) or a PIX MED (nothing moves until it is decided). Once per payment: again, the same dispute.
   */
  create(paymentId: string, params: T.DisputeSimulateParams = {}, opts?: RequestOptions): Promise<WithResponse<T.Dispute>> {
    return this.post(`/api/v1/sandbox/payments/${seg(paymentId)}/dispute`, params, opts);
  }
}

class SandboxBalance extends Resource {
  /** Test mode: credits the test balance (to fund test payouts). */
  topUp(params: T.BalanceTopUpParams, opts?: RequestOptions): Promise<WithResponse<T.BalanceTopUp>> {
    return this.post('/api/v1/sandbox/balance/top-up', params, opts);
  }
}

export class Sandbox {
  readonly payments: SandboxPayments;
  readonly balance: SandboxBalance;
  readonly mandates: SandboxMandates;
  readonly disputes: SandboxDisputes;
  constructor(transport: Transport) {
    this.payments = new SandboxPayments(transport);
    this.balance = new SandboxBalance(transport);
    this.mandates = new SandboxMandates(transport);
    this.disputes = new SandboxDisputes(transport);
  }
}
