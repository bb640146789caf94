/**
 * What the hosted checkout page and its status endpoint show: the session's state for a shopper, the
 * methods it offers, and its latest payment (so a reload mid-payment shows that payment, never a new form).
 */
import type { CheckoutView } from '../../application/checkout';
import type { CountryCode, CurrencyCode } from '../../domain/geo';
import { installmentPlan } from '../../domain/payments/installments';
import { availableMethods, type AvailableMethod } from '../../domain/payments/methods';
import type { Payment, PaymentMethod, PaymentStatus } from '../../domain/payments/payment';
import { shopperReturnUrl, shopperState, type ShopperSessionState } from '../../domain/payments/session';
import { artefactFields, pixQrUrl, publicFailureCode, type ViewContext } from './payment.view';

export type { ShopperSessionState };

export interface PagePayment {
  readonly payment_id: string;
  readonly status: PaymentStatus;
  readonly payment_method: PaymentMethod;
  readonly expires_at: string | null;
  readonly failure_code: string | null;
  readonly redirect_url: string | null;
  readonly pix_qr_code: string | null;
  /** The method's artefact: pix_code, boleto_line, boleto_barcode, due_date, clabe, reference, ... */
  readonly artefact: Readonly<Record<string, string>>;
}

export interface CheckoutStatusView {
  readonly session_id: string;
  readonly state: ShopperSessionState;
  readonly expires_at: string;
  readonly payment: PagePayment | null;
  /** Where the shopper goes once the session is completed (success_url with session_id). */
  readonly next_url: string | null;
}

export interface CheckoutPageState extends CheckoutStatusView {
  readonly merchantName: string;
  readonly amountMinor: number;
  readonly currency: CurrencyCode;
  readonly country: CountryCode;
  readonly description: string | null;
  readonly orderReference: string | null;
  readonly livemode: boolean;
  readonly methods: readonly AvailableMethod[];
  readonly installments: ReturnType<typeof installmentPlan>;
  readonly customer: Readonly<Record<string, string>>;
  readonly successUrl: string;
  readonly cancelUrl: string;
}

export function pagePayment(ctx: Pick<ViewContext, 'baseUrl'>, p: Payment): PagePayment {
  return {
    payment_id: p.payment_id,
    status: p.status,
    payment_method: p.payment_method,
    expires_at: p.expires_at,
    failure_code: publicFailureCode(p.failure_code),
    redirect_url: p.redirect_url,
    pix_qr_code: (p.payment_method === 'pix' && p.artefact?.pix_code) || p.artefact?.qr_code ? pixQrUrl(ctx, p.payment_id) : null,
    artefact: artefactFields(p),
  };
}

/** GET /checkout/{session_id}/status: what the page polls while a payment is open. */
export function checkoutStatusView(ctx: Pick<ViewContext, 'baseUrl'>, { session, payment }: CheckoutView): CheckoutStatusView {
  const state = shopperState(session);
  return {
    session_id: session.session_id,
    state,
    expires_at: session.expires_at,
    payment: payment ? pagePayment(ctx, payment) : null,
    next_url: state === 'completed' ? shopperReturnUrl(session.success_url, session.session_id) : null,
  };
}

/** GET /checkout/{session_id}: everything the hosted page renders. */
export function checkoutPageView(ctx: Pick<ViewContext, 'baseUrl'>, view: CheckoutView): CheckoutPageState {
  const { session: s, merchant } = view;
  return {
    ...checkoutStatusView(ctx, view),
    merchantName: merchant.name,
    amountMinor: s.amount_minor,
    currency: s.currency,
    country: s.country,
    description: s.description,
    orderReference: s.order_number ?? s.reference_id,
    livemode: s.livemode,
    methods: availableMethods(s.country, s.currency, s.amount_minor, merchant).filter((m) => m.enabled),
    installments: installmentPlan(s.country, s.amount_minor, s.currency),
    customer: s.customer ?? {},
    successUrl: shopperReturnUrl(s.success_url, s.session_id),
    cancelUrl: shopperReturnUrl(s.cancel_url, s.session_id),
  };
}
