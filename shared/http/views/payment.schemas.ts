/** Response schemas of the pay-in views (payment.view.ts, session.view.ts, checkout-page.view.ts, discovery). */
import * as z from 'zod';
import { PAYMENT_TYPES } from '../../domain/catalog/payment-methods';
import { FIELD_TYPES } from '../../domain/catalog/required-fields';
import { DISPUTE_KINDS, DISPUTE_STATUSES } from '../../domain/payments/dispute';
import { PAYMENT_METHODS, PAYMENT_STATUSES } from '../../domain/payments/payment';
import { SESSION_STATUSES } from '../../domain/payments/session';
import { ATTEMPT_OUTCOMES } from '../../domain/payments/provider-attempts';
import { amount, country, currency, livemode, merchantId, metadata, paymentId, sessionId, timestamp, url } from './wire.schemas';

export const paymentStatus = z.enum(PAYMENT_STATUSES).meta({ example: 'success' });
export const paymentMethod = z.enum(PAYMENT_METHODS).meta({ example: 'pix' });
const publicFailureCode = z.string().meta({ description: 'Lowercase decline code (card_declined, ...).', example: 'card_declined' });

/** What a method hands the shopper to pay with (never the PIX txid). */
const artefact = {
  pix_code: z.string().optional().meta({ description: 'PIX copia e cola (BR Code).', example: '00020126580014br.gov.bcb.pix...' }),
  boleto_line: z.string().optional().meta({ description: 'Boleto linha digitável (47 digits).' }),
  boleto_barcode: z.string().optional().meta({ description: 'Boleto barcode (44 digits).' }),
  due_date: z.string().optional().meta({ description: 'Voucher due date (YYYY-MM-DD).' }),
  clabe: z.string().optional().meta({ description: 'SPEI CLABE to transfer to.' }),
  bank_name: z.string().optional(),
  account_number: z.string().optional(),
  account_holder: z.string().optional(),
  reference: z.string().optional().meta({ description: 'Reference to quote with a transfer.' }),
  cip_code: z.string().optional().meta({ description: 'PagoEfectivo CIP code.' }),
  voucher_reference: z.string().optional().meta({ description: 'Cash voucher reference.' }),
  barcode: z
    .string()
    .optional()
    .meta({ description: 'A live ticket’s barcode number (Efecty, Servipag, PagoEfectivo), when the provider gives one.' }),
  ticket_url: z.string().optional().meta({ description: 'The provider’s printable ticket, when it gives one.' }),
  qr_code: z
    .string()
    .optional()
    .meta({ description: 'A QR to scan: Bre-B (Colombia) or a crypto order (USDT); its image is qr_code_image.' }),
  checkout_url: z.string().optional().meta({ description: 'A crypto order: the provider’s checkout page (Binance Pay).' }),
  crypto_amount: z
    .string()
    .optional()
    .meta({ description: 'A crypto order: the amount in crypto_currency the provider quoted (up to 8 decimals).', example: '20.00' }),
  crypto_currency: z.string().optional().meta({ description: 'A crypto order: the currency the shopper pays in.', example: 'USDT' }),
};

/** POST /api/v1/checkout/process, 200. */
export const processedPayment = z.object({
  success: z.literal(true),
  payment_id: paymentId,
  status: paymentStatus,
  payment_method: paymentMethod,
  ...artefact,
  pix_qr_code: url.optional().meta({ description: 'PNG of the PIX QR code.' }),
  qr_code_image: url.optional().meta({ description: 'PNG of qr_code (Bre-B, a crypto order).' }),
  redirect_url: url.optional().meta({ description: 'Where the shopper goes next (3-D Secure, wallet).' }),
  card_brand: z.string().optional().meta({ example: 'visa' }),
  card_last_four: z.string().optional().meta({ example: '4242' }),
  expires_at: timestamp.nullable().optional(),
});

/** POST /api/v1/checkout/process, 422: the payment was declined. */
export const declinedPayment = z.object({
  success: z.literal(false),
  status: z.literal('failed'),
  payment_id: paymentId,
  error_message: z.string().meta({ example: 'The card was declined.' }),
  failure_code: publicFailureCode.nullable(),
});

/** Where the payment was tried (live): provider as the providers document names it, never a provider's message. */
export const providerAttempts = z
  .array(
    z.object({
      provider: z.string().meta({ example: 'adyen' }),
      outcome: z.enum(ATTEMPT_OUTCOMES),
      failure_code: z.string().optional().meta({ description: 'Our code for a failed attempt.', example: 'card_declined' }),
    }),
  )
  .meta({ description: 'The payment’s attempts at live providers, in order; empty in the sandbox.' });

/** POST /cashier/cashier/payment, 200. */
export const directPayment = z.object({
  payment_id: paymentId,
  status: paymentStatus,
  payment_method: z.enum(['pix', 'card']),
  amount,
  currency,
  pix_code: z.string().optional(),
  pix_qr_code_base64: z.string().optional().meta({ description: 'data:image/png;base64,... of the PIX QR code.' }),
  expires_at: timestamp.nullable().optional(),
  card_brand: z.string().optional(),
  card_last_four: z.string().optional(),
  authorization_code: z.string().nullable().optional(),
  redirect_url: url.nullable().optional().meta({ description: 'pending_3ds: send the shopper here.' }),
  return_url: url.nullable().optional(),
  provider_attempts: providerAttempts,
});

/** A chargeback (live cards) or a fraud return (live PIX, MED) of the payment and where its case stands. */
export const paymentDispute = z
  .object({
    dispute_id: z.string().meta({ description: 'The dispute to answer (GET /api/v1/disputes/{dispute_id}).', example: 'dsp_x' }),
    kind: z.enum(DISPUTE_KINDS).meta({
      description:
        'chargeback: a card chargeback (the amount leaves when the case opens); ' +
        "fraud_return: a PIX infraction of the central bank's special return mechanism (MED): nothing leaves while it is " +
        'open or when it closes without a return; a fraud return debits the returned amount (a pix_fraud_return entry).',
    }),
    status: z.enum(DISPUTE_STATUSES).meta({
      description:
        'open: the case is undecided (a chargeback has withdrawn the amount, or is announced and withdraws nothing yet; ' +
        'a PIX infraction holds it at the provider); ' +
        'won: the chargeback was reversed and the amount returned, or the infraction closed without a return; ' +
        'lost: final, the amount stays withdrawn (a PIX: the returned amount was debited).',
    }),
    amount: amount.meta({ description: 'The disputed amount; once a PIX fraud return is made, the amount returned.' }),
    currency,
    reason_code: z
      .string()
      .nullable()
      .meta({
        description:
          "The card scheme's reason code, or for a PIX infraction the reported situation (scam, account_takeover, coercion, " +
          'fraudulent_access, other), when the provider gives it.',
        example: '10.4',
      }),
    deadline: timestamp
      .nullable()
      .meta({ description: 'When the case is decided by (a PIX infraction: the end of its analysis), when the provider gives it.' }),
    opened_at: timestamp,
    closed_at: timestamp.nullable(),
  })
  .meta({ id: 'PaymentDispute' });

/** GET /cashier/cashier/status/{merchant_id}/{payment_id}, 200. */
export const paymentStatusRecord = z.object({
  payment_id: paymentId,
  merchant_id: merchantId,
  status: paymentStatus,
  payment_method: paymentMethod,
  amount,
  currency,
  paid_at: timestamp.nullable(),
  refunded_amount: amount,
  created_at: timestamp,
  crypto_amount: z.string().optional().meta({ description: 'A crypto payment: the amount the provider quoted (what the shopper pays).' }),
  crypto_currency: z.string().optional().meta({ example: 'USDT' }),
  provider_attempts: providerAttempts,
  dispute: paymentDispute.optional().meta({ description: 'Present once the payment was charged back.' }),
  mandate_id: z.string().optional().meta({ description: 'A charge under a mandate: its mandate (md_...).' }),
  due_date: z.string().nullable().optional().meta({ description: 'A mandate charge: the due date it was made for (YYYY-MM-DD).' }),
  failure_code: z.string().nullable().optional().meta({ description: 'A mandate charge that failed: why (our code).' }),
  charge_attempts: z
    .array(z.object({ date: z.string(), outcome: z.enum(['scheduled', 'paid', 'failed']), failure_code: z.string().nullable() }))
    .optional()
    .meta({ description: 'A Pix Automático charge: each settlement attempt at the PSP (retries under the retry policy).' }),
});

/** POST /api/v1/sandbox/payments/{payment_id}/simulate, 200. */
export const simulatedPayment = paymentStatusRecord.extend({ success: z.literal(true) });

export const requiredField = z.object({
  field: z.string().meta({ example: 'document' }),
  type: z.enum(FIELD_TYPES),
  label: z.string().meta({ example: 'CPF' }),
  required: z.boolean(),
});

/** SPEC.md 2.5 PaymentMethodInfo. */
export const paymentMethodInfo = z
  .object({
    method_code: z.string().meta({ example: 'svc-mt-1' }),
    name: z.string().meta({ example: 'PIX' }),
    description: z.string(),
    payment_type: z.enum(PAYMENT_TYPES),
    country: z.union([country, z.literal('GLOBAL')]),
    currency,
    flow_type: z.enum(['embedded', 'redirect']),
    required_fields: z.array(requiredField),
    min_amount: z.number(),
    max_amount: z.number(),
  })
  .meta({ id: 'PaymentMethodInfo' });

export const methodList = z.object({ success: z.literal(true), methods: z.array(paymentMethodInfo), total: z.number().int() });

/** POST /api/v1/checkout, 200. */
export const createdSession = z.object({
  success: z.literal(true),
  status: z.literal('redirect'),
  session_id: sessionId,
  checkout_url: url.meta({ description: 'The hosted page: send the shopper here.' }),
  expires_at: timestamp,
});

const availableMethod = z.object({
  id: paymentMethod,
  type: z.string(),
  name: z.string(),
  method_code: z.string(),
  enabled: z.boolean(),
  flow_type: z.enum(['embedded', 'redirect']),
  required_fields: z.array(requiredField),
  wallets: z
    .array(z.string())
    .optional()
    .meta({ description: 'The wallets the shopper may choose (`wallet` on process): mercado_pago, picpay, nupay.' }),
});

/** GET /api/v1/checkout/{session_id}, 200 (SPEC.md 2.1). */
export const checkoutSession = z
  .object({
    id: sessionId,
    merchant_id: merchantId,
    merchant_name: z.string(),
    amount,
    currency,
    country,
    description: z.string(),
    customer: z.record(z.string(), z.string()),
    available_methods: z.array(availableMethod),
    success_url: url,
    cancel_url: url,
    operation_type: z.literal('payin'),
    status: z.enum([...new Set([...SESSION_STATUSES, ...PAYMENT_STATUSES])]).meta({
      description: 'The latest payment’s status once there is one (success, refunded, ...), else the session’s.',
      example: 'pending',
    }),
    payment_status: paymentStatus.nullable(),
    payment_id: paymentId.nullable(),
    refunded_amount: amount,
    reference_id: z.string().nullable(),
    metadata,
    livemode,
    expires_at: timestamp,
    created_at: timestamp,
  })
  .meta({ id: 'CheckoutSession' });

/** POST /api/v1/checkout/{session_id}/cancel, 200. */
export const cancelledSession = z.object({
  success: z.literal(true),
  session_id: sessionId,
  status: z.enum(SESSION_STATUSES),
  message: z.string(),
});

/** GET /checkout/{session_id}/status: what the hosted page polls. */
export const checkoutStatus = z.object({
  session_id: sessionId,
  state: z.enum(['open', 'completed', 'cancelled', 'expired']),
  expires_at: timestamp,
  payment: z
    .object({
      payment_id: paymentId,
      status: paymentStatus,
      payment_method: paymentMethod,
      expires_at: timestamp.nullable(),
      failure_code: publicFailureCode.nullable(),
      redirect_url: url.nullable(),
      pix_qr_code: url.nullable(),
      artefact: z.record(z.string(), z.string()),
    })
    .nullable(),
  next_url: url.nullable(),
});
