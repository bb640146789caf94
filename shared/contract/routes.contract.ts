/**
 * What each route of the manifest takes and answers, for the published contract (OpenAPI) and the
 * contract tests. Request schemas are the very objects the handlers validate with (a unit test checks
 * identity); response schemas sit beside the views that shape them. Errors list only what the route's
 * own use case can raise; the codes every route of a kind can answer are added in errors.contract.ts.
 */
import type { ZodType } from 'zod';
import type * as z4 from 'zod/v4/core';
import type { ErrorCode } from '../domain/errors';
import type { RouteId } from '../manifest/routes';
import { getMethodPath, getMethodQuery, listMethodsQuery } from '../domain/catalog/discovery.schemas';
import { balanceTransactionsQuery } from '../domain/ledger.schemas';
import * as pay from '../domain/payments/payment.schemas';
import * as po from '../domain/payouts/payout.schemas';
import * as md from '../domain/mandates/mandate.schemas';
import * as dsp from '../domain/disputes/dispute.schemas';
import { createRefundBody, paymentRefundsPath, refundPath } from '../domain/refunds/refund.schemas';
import { eventPath, listEventsQuery } from '../domain/webhooks/event.schemas';
import * as payin from '../http/views/payment.schemas';
import * as payout from '../http/views/payout.schemas';
import * as mandate from '../http/views/mandate.schemas';
import * as dispute from '../http/views/dispute.schemas';
import * as refunds from '../http/views/refund.schemas';
import * as events from '../http/views/event.schemas';
import { binancePayAnswer, healthReport, openApiDocument, providerCallbackReceived, stpCallbackAnswer } from './system.schemas';
import { providerTokenPath, recurrenceCallbackPath } from '../domain/providers.schemas';

export type MediaKind = 'json' | 'html' | 'png' | 'redirect' | 'text';

export interface ResponseContract {
  readonly description: string;
  /** JSON body schema (kind json). */
  readonly schema?: ZodType;
  readonly kind?: MediaKind;
}

export interface RouteContract {
  /** The handlers' own schemas: zod/mini (shared/domain/zod.ts), so typed by the zod 4 core both APIs share. */
  readonly request?: { readonly query?: z4.$ZodType; readonly path?: z4.$ZodType; readonly body?: z4.$ZodType };
  /** Successful (and non-error) answers by status. */
  readonly responses: Readonly<Record<number, ResponseContract>>;
  /** Codes the route's own logic can raise, beyond those of its kind. */
  readonly errors?: readonly ErrorCode[];
}

const ok = (schema: ZodType, description = 'OK.'): Record<number, ResponseContract> => ({ 200: { description, schema } });
const html = (description: string): ResponseContract => ({ description, kind: 'html' });

const SESSION_ERRORS = ['SESSION_NOT_FOUND'] as const;
/** Live payments: the provider did not answer (the payment is recorded, processing) or refused the charge. */
const PROVIDER_ERRORS = ['PROVIDER_UNAVAILABLE', 'PROVIDER_REJECTED'] as const satisfies readonly ErrorCode[];
const PAYMENT_ERRORS = ['COUNTRY_NOT_SUPPORTED', 'METHOD_NOT_AVAILABLE', 'AMOUNT_LIMIT_EXCEEDED'] as const;
const CARD_DECLINES = ['CARD_DECLINED', 'INSUFFICIENT_FUNDS', 'EXPIRED_CARD', 'INCORRECT_CVC', 'AUTHENTICATION_FAILED'] as const;
const REFUND_ERRORS = [
  'PAYMENT_NOT_FOUND',
  'PAYMENT_NOT_REFUNDABLE',
  'REFUND_AMOUNT_EXCEEDED',
  'REFUND_WINDOW_EXPIRED',
  'METHOD_NOT_AVAILABLE',
  'INSUFFICIENT_BALANCE',
] as const;

export const ROUTE_CONTRACTS = {
  health: {
    responses: {
      200: { description: 'The service and its table answer.', schema: healthReport },
      503: { description: 'A dependency is unavailable.', schema: healthReport },
    },
  },
  openApiDocument: { responses: ok(openApiDocument, 'This document.') },
  apiReference: { responses: { 200: html('The reference page: endpoints, webhooks and error codes.') } },
  listMethods: { request: { query: listMethodsQuery }, responses: ok(payin.methodList) },
  getMethod: {
    request: { path: getMethodPath, query: getMethodQuery },
    responses: ok(payin.paymentMethodInfo),
    errors: ['PAYMENT_METHOD_NOT_FOUND'],
  },
  createCheckoutSession: {
    request: { body: pay.createSessionBody },
    responses: ok(payin.createdSession, 'The session; send the shopper to checkout_url.'),
    errors: ['COUNTRY_NOT_SUPPORTED'],
  },
  getCheckoutSession: { request: { path: pay.sessionPath }, responses: ok(payin.checkoutSession), errors: SESSION_ERRORS },
  cancelCheckoutSession: {
    request: { path: pay.sessionPath },
    responses: ok(payin.cancelledSession),
    errors: [...SESSION_ERRORS, 'SESSION_NOT_PENDING', 'SESSION_EXPIRED'],
  },
  processCheckoutPayment: {
    request: { body: pay.processBody },
    responses: {
      200: { description: 'The payment started or completed, with what the shopper needs to pay.', schema: payin.processedPayment },
      422: { description: 'The payment was declined.', schema: payin.declinedPayment },
    },
    errors: [...SESSION_ERRORS, 'SESSION_EXPIRED', 'SESSION_NOT_PENDING', 'MERCHANT_INACTIVE', ...PAYMENT_ERRORS, ...PROVIDER_ERRORS],
  },
  createDirectPayment: {
    request: { body: pay.directPaymentBody },
    responses: ok(payin.directPayment, 'The payment: a PIX code, an authorised card, or a 3-D Secure redirect.'),
    errors: [...PAYMENT_ERRORS, ...CARD_DECLINES, ...PROVIDER_ERRORS],
  },
  getPaymentStatus: {
    request: { path: pay.paymentStatusPath },
    responses: ok(payin.paymentStatusRecord),
    errors: ['PAYMENT_NOT_FOUND', 'MERCHANT_NOT_FOUND'],
  },
  createRefund: {
    request: { path: paymentRefundsPath, body: createRefundBody },
    responses: ok(refunds.refund, 'The refund, pending until the rail settles it.'),
    errors: REFUND_ERRORS,
  },
  listPaymentRefunds: { request: { path: paymentRefundsPath }, responses: ok(refunds.paymentRefunds), errors: ['PAYMENT_NOT_FOUND'] },
  getRefund: { request: { path: refundPath }, responses: ok(refunds.refund), errors: ['REFUND_NOT_FOUND'] },
  simulatePayment: {
    request: { path: pay.paymentPath, body: pay.simulateBody },
    responses: ok(payin.simulatedPayment),
    errors: ['PAYMENT_NOT_FOUND', 'PAYMENT_STATE_CONFLICT', 'SESSION_NOT_PENDING'],
  },
  checkoutPage: {
    request: { path: pay.checkoutPagePath, query: pay.checkoutPageQuery },
    responses: {
      200: html('The hosted checkout page, in Portuguese or Spanish (Accept-Language, ?locale=).'),
      404: html('No such session: a page telling the shopper so.'),
    },
  },
  checkoutStatus: { request: { path: pay.sessionPath }, responses: ok(payin.checkoutStatus), errors: SESSION_ERRORS },
  pixQrImage: {
    request: { path: pay.paymentPath },
    responses: { 200: { description: 'The PIX QR code as PNG.', kind: 'png' } },
    errors: ['PAYMENT_NOT_FOUND'],
  },
  sandboxPage: {
    request: { path: pay.sandboxPagePath },
    responses: {
      200: html('The sandbox 3-D Secure challenge, wallet approval or "customer paid" page; kind mandate: a test mandate’s approval page.'),
    },
    errors: ['PAYMENT_NOT_FOUND', 'MANDATE_NOT_FOUND'],
  },
  sandboxComplete: {
    request: { path: pay.sandboxPagePath, body: pay.simulateBody },
    responses: {
      303: {
        description:
          'Completed; the shopper is sent back (Location). Kind mandate: success approves, failed rejects a pending mandate; the ' +
          'payer goes to success_url (active) or cancel_url (ended), else to the page.',
        kind: 'redirect',
      },
    },
    // SESSION_NOT_PENDING: a checkout card still in 3-D Secure when its session was cancelled cannot complete it.
    errors: ['PAYMENT_NOT_FOUND', 'PAYMENT_STATE_CONFLICT', 'SESSION_NOT_PENDING', 'MANDATE_NOT_FOUND'],
  },
  sandboxDone: {
    request: { path: pay.paymentPath },
    responses: { 200: html('Where a direct payment without return_url lands after 3-D Secure.') },
    errors: ['PAYMENT_NOT_FOUND'],
  },
  listEvents: { request: { query: listEventsQuery }, responses: ok(events.eventList) },
  getEvent: { request: { path: eventPath }, responses: ok(events.eventRecord), errors: ['EVENT_NOT_FOUND'] },
  resendEvent: {
    request: { path: eventPath },
    responses: { 202: { description: 'Queued for delivery again.', schema: events.resentEvent } },
    errors: ['EVENT_NOT_FOUND'],
  },
  createPayout: {
    request: { body: po.createPayoutBody },
    responses: ok(payout.createdPayout),
    errors: ['METHOD_NOT_AVAILABLE', 'AMOUNT_LIMIT_EXCEEDED', 'INVALID_BENEFICIARY', 'INSUFFICIENT_BALANCE', ...PROVIDER_ERRORS],
  },
  createPayoutBatch: {
    request: { body: po.createPayoutBatchBody },
    responses: ok(payout.payoutBatch, 'One result per request, in request order: made (payout_id, status) or refused (error).'),
  },
  getPayout: { request: { path: po.payoutPath }, responses: ok(payout.payoutRecord), errors: ['PAYOUT_NOT_FOUND'] },
  cancelPayout: {
    request: { path: po.payoutPath },
    responses: ok(payout.cancelledPayout),
    errors: ['PAYOUT_NOT_FOUND', 'CANNOT_CANCEL', 'PAYOUT_STATE_CONFLICT'],
  },
  listPayouts: { request: { query: po.listPayoutsQuery }, responses: ok(payout.payoutList) },
  availablePayoutMethods: { request: { query: po.availablePayoutMethodsQuery }, responses: ok(payout.payoutMethods) },
  validateBeneficiary: {
    request: { body: po.validateBeneficiaryBody },
    responses: ok(payout.beneficiaryCheck, 'Valid or not, with every bad field named.'),
    errors: ['METHOD_NOT_AVAILABLE'],
  },
  createMandate: {
    request: { body: md.createMandateBody },
    responses: ok(mandate.mandateResource, 'The mandate, pending_approval, with what the payer approves (`approval`).'),
    errors: ['METHOD_NOT_AVAILABLE', ...PROVIDER_ERRORS],
  },
  listMandates: { request: { query: md.listMandatesQuery }, responses: ok(mandate.mandateList) },
  getMandate: { request: { path: md.mandatePath }, responses: ok(mandate.mandateResource), errors: ['MANDATE_NOT_FOUND'] },
  cancelMandate: {
    request: { path: md.mandatePath },
    responses: ok(mandate.mandateResource, 'The mandate, cancelled (cancelled_by merchant).'),
    errors: ['MANDATE_NOT_FOUND', 'MANDATE_STATE_CONFLICT', 'PROVIDER_UNAVAILABLE'],
  },
  createMandateCharge: {
    request: { path: md.mandatePath, body: md.createMandateChargeBody },
    responses: ok(payin.simulatedPayment, 'The charge: a payment with mandate_id, pending (PIX) or decided (card).'),
    errors: [
      'MANDATE_NOT_FOUND',
      'MANDATE_NOT_ACTIVE',
      'MANDATE_CYCLE_ALREADY_CHARGED',
      'MANDATE_AMOUNT_EXCEEDED',
      'DUE_DATE_OUTSIDE_WINDOW',
      'METHOD_NOT_AVAILABLE',
      ...PROVIDER_ERRORS,
    ],
  },
  mandateApprovePage: {
    request: { path: md.mandatePagePath },
    responses: { 200: html('The terms and a card form.'), 404: html('No such authorisation (a broken link).') },
  },
  mandateApprove: {
    request: { path: md.mandatePath, body: md.approveCardForm },
    responses: {
      200: html('The payer goes on to 3-D Secure at the card issuer (a form posted on its own).'),
      303: {
        description: 'Decided: on to the merchant’s success or cancel URL, or to the bank’s authentication (Location).',
        kind: 'redirect',
      },
      422: html('The page again, saying why the card could not be checked now.'),
    },
    errors: ['MANDATE_NOT_FOUND'],
  },
  simulateMandate: {
    request: { path: md.mandatePath, body: md.simulateMandateBody },
    responses: ok(
      mandate.mandateResource,
      'The mandate after the payer’s act: active (mandate.approved), rejected, expired, or cancelled (cancelled_by payer).',
    ),
    errors: ['MANDATE_NOT_FOUND', 'MANDATE_STATE_CONFLICT'],
  },
  listDisputes: { request: { query: dsp.listDisputesQuery }, responses: ok(dispute.disputeList) },
  getDispute: {
    request: { path: dsp.disputePath },
    responses: ok(dispute.disputeResource, 'The dispute; while it needs a response, the defense reasons its provider lists now.'),
    errors: ['DISPUTE_NOT_FOUND'],
  },
  stageDisputeEvidence: {
    request: { path: dsp.disputePath, body: dsp.evidenceBody },
    responses: ok(dispute.disputeResource, 'The dispute with its staged evidence (documents by type and size).'),
    errors: ['DISPUTE_NOT_FOUND', 'DISPUTE_NOT_OPEN', 'DISPUTE_DEADLINE_PASSED', 'DISPUTE_NOT_DEFENDABLE', 'PROVIDER_UNAVAILABLE'],
  },
  submitDispute: {
    request: { path: dsp.disputePath },
    responses: ok(dispute.disputeResource, 'The dispute, under_review: the provider has the evidence.'),
    errors: ['DISPUTE_NOT_FOUND', 'DISPUTE_NOT_OPEN', 'DISPUTE_DEADLINE_PASSED', 'DISPUTE_NOT_DEFENDABLE', ...PROVIDER_ERRORS],
  },
  acceptDispute: {
    request: { path: dsp.disputePath },
    responses: ok(dispute.disputeResource, 'The dispute, accepted: closed, the amount stays with the payer.'),
    errors: ['DISPUTE_NOT_FOUND', 'DISPUTE_NOT_OPEN', 'DISPUTE_NOT_DEFENDABLE', ...PROVIDER_ERRORS],
  },
  simulateDispute: {
    request: { path: pay.paymentPath, body: dsp.simulateDisputeBody },
    responses: ok(dispute.disputeResource, 'The test dispute: a card chargeback (amount withdrawn) or a PIX MED, needs_response.'),
    errors: ['PAYMENT_NOT_FOUND', 'PAYMENT_STATE_CONFLICT'],
  },
  getBalance: { responses: ok(payout.balances) },
  listBalanceTransactions: { request: { query: balanceTransactionsQuery }, responses: ok(payout.balanceTransactions) },
  topUpTestBalance: { request: { body: po.topUpBody }, responses: ok(payout.balances, 'The balances after the top-up.') },
  apiPixCallback: {
    request: { path: providerTokenPath },
    responses: ok(providerCallbackReceived, 'Handled: every Pix read back from the PSP (unknown txids are counted, not retried).'),
    errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
  },
  apiPixRecurrenceCallback: {
    request: { path: recurrenceCallbackPath },
    responses: ok(providerCallbackReceived, 'Handled: every recurrence or charge named read back from the PSP (unknown ids counted).'),
    errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
  },
  stpEstadoCallback: {
    request: { path: providerTokenPath },
    responses: ok(stpCallbackAnswer, 'Recorded: the order was read back from STP and what it holds applied (unknown orders included).'),
    errors: ['NOT_FOUND', 'VALIDATION_ERROR', 'PROVIDER_UNAVAILABLE'],
  },
  stpAbonoCallback: {
    request: { path: providerTokenPath },
    responses: ok(
      stpCallbackAnswer,
      'Confirmed by STP’s query of received orders, then recorded: confirmar (matched or kept for an operator) or ' +
        'devolver with the return cause (unknown CLABE, or a payment already paid, expired or cancelled).',
    ),
    errors: ['NOT_FOUND', 'VALIDATION_ERROR', 'PROVIDER_UNAVAILABLE'],
  },
  efiPixCallback: {
    request: { path: providerTokenPath },
    responses: ok(
      providerCallbackReceived,
      'Handled: every send of ours it names read back from Efí by idEnvio and what Efí holds applied.',
    ),
    errors: ['NOT_FOUND', 'VALIDATION_ERROR', 'PROVIDER_UNAVAILABLE'],
  },
  dlocalPayoutNotifications: {
    responses: ok(providerCallbackReceived, 'Handled: the payout read back from dLocal by external_id and what dLocal holds applied.'),
    errors: ['NOT_FOUND', 'UNAUTHORIZED', 'VALIDATION_ERROR', 'PROVIDER_UNAVAILABLE'],
  },
  adyenNotifications: {
    responses: {
      200: { description: '`[accepted]`: every verified item logged and applied (forged items are counted, never read).', kind: 'text' },
      409: {
        description: '`retry`: an item cannot apply yet (a chargeback of a payment whose own outcome has not arrived); Adyen resends it.',
        kind: 'text',
      },
    },
    errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
  },
  adyenThreeDs: {
    request: { path: pay.paymentPath },
    responses: {
      200: html("A form that posts the shopper to Adyen's 3-D Secure page."),
      303: { description: "Sent to Adyen's 3-D Secure page (Location).", kind: 'redirect' },
    },
    errors: ['PAYMENT_NOT_FOUND'],
  },
  adyenReturn: {
    request: { path: pay.heldReturnPath, query: pay.threeDsReturnQuery },
    responses: {
      303: {
        description: 'Completed at Adyen (a payment, or a card mandate’s approval); on to the return URL (Location).',
        kind: 'redirect',
      },
    },
    errors: ['PAYMENT_NOT_FOUND', 'MANDATE_NOT_FOUND'],
  },
  dlocalNotifications: {
    responses: ok(
      providerCallbackReceived,
      'Handled: the payment read back from dLocal and what it holds applied (unknown orders and refunds are acknowledged, nothing moves).',
    ),
    errors: ['NOT_FOUND', 'UNAUTHORIZED', 'VALIDATION_ERROR', 'PROVIDER_UNAVAILABLE'],
  },
  dlocalChargebacks: {
    responses: {
      200: {
        description:
          'Handled: the chargeback read back from dLocal and applied to the dLocal card payment it disputes, once per chargeback ' +
          'and status (unknown payments, repeats and stale notices are acknowledged, nothing moves).',
        schema: providerCallbackReceived,
      },
      409: {
        description: "`received: 0`: the chargeback's payment has no outcome here yet; dLocal sends the notice again.",
        schema: providerCallbackReceived,
      },
    },
    errors: ['NOT_FOUND', 'UNAUTHORIZED', 'VALIDATION_ERROR', 'PROVIDER_UNAVAILABLE'],
  },
  dlocalReturn: {
    request: { path: pay.paymentPath },
    responses: {
      303: { description: "Read back from dLocal; the shopper is sent to the merchant's page or ours (Location).", kind: 'redirect' },
    },
    errors: ['PAYMENT_NOT_FOUND'],
  },
  dlocalCardReturn: {
    request: { path: pay.paymentPath },
    responses: {
      303: {
        description: "Read back from dLocal after 3-D Secure; the shopper is sent to the return URL or the merchant's page (Location).",
        kind: 'redirect',
      },
    },
    errors: ['PAYMENT_NOT_FOUND'],
  },
  binancePayNotifications: {
    responses: ok(
      binancePayAnswer,
      'Handled: the order read back from Binance Pay and what it holds applied (unknown orders are acknowledged, nothing moves).',
    ),
    errors: ['NOT_FOUND', 'UNAUTHORIZED', 'VALIDATION_ERROR', 'PROVIDER_UNAVAILABLE'],
  },
  binancePayReturn: {
    request: { path: pay.paymentPath },
    responses: {
      303: { description: "Read back from Binance Pay; the shopper is sent to the merchant's page or ours (Location).", kind: 'redirect' },
    },
    errors: ['PAYMENT_NOT_FOUND'],
  },
} as const satisfies Record<RouteId, RouteContract>;

export const routeContract = (id: RouteId): RouteContract => ROUTE_CONTRACTS[id];
