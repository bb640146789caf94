/** How checkout sessions look on the wire (SPEC.md 2.1-2.3). */
import { checkoutUrl } from '../../application/payments';
import type { Merchant } from '../../domain/merchant';
import type { Payment } from '../../domain/payments/payment';
import { fromMinor } from '../../domain/money';
import { availableMethods } from '../../domain/payments/methods';
import { reportedStatus, type CheckoutSession } from '../../domain/payments/session';
import type { ViewContext } from './payment.view';

/** POST /api/v1/checkout: where to send the shopper. */
export function createdSessionView(ctx: Pick<ViewContext, 'baseUrl'>, s: CheckoutSession) {
  return {
    success: true,
    status: 'redirect',
    session_id: s.session_id,
    checkout_url: checkoutUrl(ctx, s.session_id),
    expires_at: s.expires_at,
  };
}

/** GET /api/v1/checkout/{session_id}: the session with the methods it offers and its latest payment. */
export function sessionView(
  ctx: Pick<ViewContext, 'clock'>,
  { session: s, payment }: { session: CheckoutSession; payment: Payment | null },
  merchant: Pick<Merchant, 'name' | 'methods' | 'countries'>,
) {
  return {
    id: s.session_id,
    merchant_id: s.merchant_id,
    merchant_name: merchant.name,
    amount: fromMinor(s.amount_minor, s.currency),
    currency: s.currency,
    country: s.country,
    description: s.description ?? '',
    customer: s.customer ?? {},
    available_methods: availableMethods(s.country, s.currency, s.amount_minor, merchant),
    success_url: s.success_url,
    cancel_url: s.cancel_url,
    operation_type: 'payin',
    status: reportedStatus(s, ctx.clock.now()),
    payment_status: s.payment_status,
    payment_id: s.payment_id,
    refunded_amount: fromMinor(payment?.refunded_minor ?? 0, s.currency),
    reference_id: s.order_number ?? s.reference_id,
    metadata: s.metadata,
    livemode: s.livemode,
    expires_at: s.expires_at,
    created_at: s.created_at,
  };
}

/** POST /api/v1/checkout/{session_id}/cancel. */
export const cancelledSessionView = (s: CheckoutSession) => ({
  success: true,
  session_id: s.session_id,
  status: s.status,
  message: 'Checkout session cancelled.',
});
