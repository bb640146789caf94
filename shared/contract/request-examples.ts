/** Realistic request bodies for the reference (sandbox values; each is validated against its schema by the tests). */
import type { RouteId } from '../manifest/routes';

const SESSION = 'cs_A1b2C3d4E5f6G7h8I9j0Kl';
const CUSTOMER = { name: 'Maria Silva', email: 'maria@example.com', document: '52998224725', phone: '+5511987654321' };
const PIX_BENEFICIARY = {
  name: 'Maria Silva',
  document: '52998224725',
  document_type: 'CPF',
  instant_transfer_key: 'maria@example.com',
  instant_transfer_type: 'email',
};

export const REQUEST_EXAMPLES: Partial<Record<RouteId, unknown>> = {
  createCheckoutSession: {
    amount: 150.5,
    currency: 'BRL',
    country: 'BRA',
    success_url: 'https://shop.example.com/orders/1001/paid',
    cancel_url: 'https://shop.example.com/cart',
    notification_url: 'https://shop.example.com/webhooks/payments',
    description: 'Order 1001',
    order_number: '1001',
    customer: { name: 'Maria Silva', email: 'maria@example.com' },
    metadata: { order: '1001' },
  },
  processCheckoutPayment: { session_id: SESSION, payment_method: 'pix', customer: CUSTOMER },
  createDirectPayment: {
    payment_method: 'card',
    amount: 99.9,
    currency: 'BRL',
    country: 'BRA',
    customer: CUSTOMER,
    card: { number: '4242424242424242', holder_name: 'MARIA SILVA', expiry_month: '12', expiry_year: '2030', cvv: '123' },
    return_url: 'https://shop.example.com/orders/1002',
    reference_id: 'order-1002',
    metadata: { order: '1002' },
  },
  createMandate: {
    country: 'BRA',
    currency: 'BRL',
    method: 'pix_automatico',
    customer: CUSTOMER,
    description: 'Gym membership, monthly',
    frequency: 'monthly',
    amount: 99.9,
    start_date: '2027-01-05',
    retry_policy: 'retry_3_in_7_days',
    notification_url: 'https://shop.example.com/webhooks/payments',
    reference_id: 'member-881',
  },
  mandateApprove: { holder_name: 'MARIA SILVA', number: '4242424242424242', expiry_month: '12', expiry_year: '2030', cvv: '123' },
  createMandateCharge: { amount: 99.9, due_date: '2027-02-05', description: 'February' },
  simulateMandate: { outcome: 'approve' },
  stageDisputeEvidence: {
    defense_reason: 'SupplyDefenseMaterial',
    documents: [
      {
        type: 'DefenseMaterial',
        mime: 'application/pdf',
        // A minimal PDF; a real document is the whole file, as base64.
        content_base64: 'JVBERi0xLjQKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKJSVFT0YK',
      },
    ],
    text: 'Order 1002 was delivered on 2027-01-08 and signed for by the cardholder; the delivery receipt is attached.',
  },
  simulateDispute: { reason_code: '13.1' },
  createRefund: { amount: 50, reason: 'requested_by_customer', metadata: { ticket: 'SUP-881' } },
  simulatePayment: { outcome: 'success' },
  sandboxComplete: { outcome: 'success' },
  createPayout: {
    method_code: 'svc-mt-5',
    amount: 250,
    currency: 'BRL',
    beneficiary: PIX_BENEFICIARY,
    description: 'Seller payout week 47',
    metadata: { seller: 's-77' },
  },
  createPayoutBatch: {
    payouts: [
      { method_code: 'svc-mt-5', amount: 250, currency: 'BRL', beneficiary: PIX_BENEFICIARY, description: 'Seller payout week 47' },
      { method_code: 'svc-mt-5', amount: 80.5, currency: 'BRL', beneficiary: PIX_BENEFICIARY, metadata: { seller: 's-78' } },
    ],
  },
  validateBeneficiary: { method_code: 'svc-mt-5', beneficiary: PIX_BENEFICIARY },
  topUpTestBalance: { currency: 'BRL', amount: 10000 },
};
