/**
 * Names for the generated shapes (src/openapi.generated.ts): each operation's parameters, body and
 * answer, and the webhook events, so merchant code reads `Payout` rather than an indexed access type.
 */
import type { operations, webhooks } from './openapi.generated.ts';

export type { operations, webhooks, paths, components } from './openapi.generated.ts';

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Responses<O extends keyof operations> = operations[O]['responses'];

/** The JSON body an operation takes. */
export type BodyOf<O extends keyof operations> = JsonOf<NonNullable<operations[O]['requestBody']>>;
/** The JSON body of an operation's success answer (200, or 202 for accepted work). */
export type ResultOf<O extends keyof operations> = JsonOf<
  Responses<O> extends { 200: infer R } ? R : Responses<O> extends { 202: infer R } ? R : never
>;
/** An operation's query parameters. */
export type QueryOf<O extends keyof operations> = NonNullable<operations[O]['parameters']['query']>;

// Checkout sessions
export type CheckoutSessionCreateParams = BodyOf<'createCheckoutSession'>;
export type CheckoutSessionCreated = ResultOf<'createCheckoutSession'>;
export type CheckoutSession = ResultOf<'getCheckoutSession'>;
export type CheckoutSessionCancelled = ResultOf<'cancelCheckoutSession'>;
// Direct payments and refunds
export type PaymentCreateParams = BodyOf<'createDirectPayment'>;
export type PaymentCreated = ResultOf<'createDirectPayment'>;
export type Payment = ResultOf<'getPaymentStatus'>;
export type RefundCreateParams = BodyOf<'createRefund'>;
export type Refund = ResultOf<'getRefund'>;
export type PaymentRefundList = ResultOf<'listPaymentRefunds'>;
export type PaymentRefund = PaymentRefundList['data'][number];
export type PaymentSimulateParams = BodyOf<'simulatePayment'>;
export type PaymentSimulated = ResultOf<'simulatePayment'>;
// Payouts
export type PayoutCreateParams = BodyOf<'createPayout'>;
export type PayoutCreated = ResultOf<'createPayout'>;
export type Payout = ResultOf<'getPayout'>;
/** Up to 100 payout requests; each is checked and answered on its own (typed as createPayout's body). */
export type PayoutBatchCreateParams = { payouts: PayoutCreateParams[] };
export type PayoutBatch = ResultOf<'createPayoutBatch'>;
export type PayoutBatchResult = PayoutBatch['results'][number];
export type PayoutListParams = Omit<QueryOf<'listPayouts'>, 'starting_after' | 'offset'>;
export type PayoutListPage = ResultOf<'listPayouts'>;
export type PayoutListItem = PayoutListPage['data'][number];
export type PayoutCancelled = ResultOf<'cancelPayout'>;
export type PayoutValidateParams = BodyOf<'validateBeneficiary'>;
export type PayoutValidation = ResultOf<'validateBeneficiary'>;
export type PayoutMethodListParams = QueryOf<'availablePayoutMethods'>;
export type PayoutMethodList = ResultOf<'availablePayoutMethods'>;
// Mandates (Pix Automático, cards on file) and their charges
export type MandateCreateParams = BodyOf<'createMandate'>;
export type Mandate = ResultOf<'getMandate'>;
export type MandateListParams = Omit<QueryOf<'listMandates'>, 'starting_after' | 'offset'>;
export type MandateListPage = ResultOf<'listMandates'>;
export type MandateListItem = MandateListPage['data'][number];
export type MandateChargeCreateParams = BodyOf<'createMandateCharge'>;
/** A charge is a payment with `mandate_id` set. */
export type MandateCharge = ResultOf<'createMandateCharge'>;
export type MandateSimulateParams = BodyOf<'simulateMandate'>;
// Disputes (card chargebacks, PIX MED infractions): evidence, submission, acceptance
export type Dispute = ResultOf<'getDispute'>;
export type DisputeListParams = Omit<QueryOf<'listDisputes'>, 'starting_after' | 'offset'>;
export type DisputeListPage = ResultOf<'listDisputes'>;
export type DisputeListItem = DisputeListPage['data'][number];
export type DisputeEvidenceParams = BodyOf<'stageDisputeEvidence'>;
export type DefenseReason = NonNullable<Dispute['defense_reasons']>[number];
export type DisputeSimulateParams = BodyOf<'simulateDispute'>;
// Balance
export type Balance = ResultOf<'getBalance'>;
export type BalanceTransactionListParams = Omit<QueryOf<'listBalanceTransactions'>, 'starting_after'>;
export type BalanceTransactionListPage = ResultOf<'listBalanceTransactions'>;
export type BalanceTransaction = BalanceTransactionListPage['data'][number];
export type BalanceTopUpParams = BodyOf<'topUpTestBalance'>;
export type BalanceTopUp = ResultOf<'topUpTestBalance'>;
// Payment methods
export type MethodListParams = QueryOf<'listMethods'>;
export type MethodList = ResultOf<'listMethods'>;
export type PaymentMethod = MethodList['methods'][number];
export type MethodRetrieveParams = QueryOf<'getMethod'>;
// Events
export type EventListParams = Omit<QueryOf<'listEvents'>, 'cursor'>;
export type EventListPage = ResultOf<'listEvents'>;
export type EventSummary = EventListPage['data'][number];
export type Event = ResultOf<'getEvent'>;
export type EventResent = ResultOf<'resendEvent'>;

/** Every webhook the API sends, by its `event` field. */
export type WebhookEventType = keyof webhooks;
/** A webhook's body; narrow it with `switch (event.event)`. */
export type WebhookEvent = { [K in WebhookEventType]: JsonOf<NonNullable<operations[`webhook.${K}`]['requestBody']>> }[WebhookEventType];
