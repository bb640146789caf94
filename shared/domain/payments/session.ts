/** Checkout sessions: statuses, transitions (SPEC.md 3.2) and the status GET reports. */
import type { CountryCode, CurrencyCode } from '../geo';
import type { PaymentStatus } from './payment';

export const SESSION_STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired', 'cancelled'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const SESSION_TRANSITIONS: Readonly<Record<SessionStatus, readonly SessionStatus[]>> = {
  pending: ['completed', 'expired', 'cancelled'],
  processing: ['completed', 'expired', 'cancelled'],
  completed: [],
  failed: [],
  expired: [],
  cancelled: [],
};

export const canSessionTransition = (from: SessionStatus, to: SessionStatus) => SESSION_TRANSITIONS[from].includes(to);

/** Statuses in which a session still accepts payment attempts (it can still complete, expire or be cancelled). */
/** The webhook event a session emits when it closes without a payment (a paid session's event is its payment's). */
export const SESSION_EVENT = { cancelled: 'checkout.session.cancelled', expired: 'checkout.session.expired' } as const;

export const OPEN_SESSION_STATUSES: readonly SessionStatus[] = ['pending', 'processing'];
export const isOpenSessionStatus = (s: SessionStatus) => OPEN_SESSION_STATUSES.includes(s);

export const SESSION_EXPIRY_MINUTES = { default: 30, min: 5, max: 1440 } as const;

export interface CheckoutSession {
  readonly session_id: string;
  readonly merchant_id: string;
  readonly livemode: boolean;
  readonly amount_minor: number;
  readonly currency: CurrencyCode;
  readonly country: CountryCode;
  readonly status: SessionStatus;
  readonly success_url: string;
  readonly cancel_url: string;
  readonly notification_url: string | null;
  readonly description: string | null;
  readonly customer: Record<string, string> | null;
  readonly order_number: string | null;
  readonly reference_id: string | null;
  readonly metadata: Record<string, string | number | boolean | null>;
  /** The latest payment attempt and its status (denormalised for GET). */
  readonly payment_id: string | null;
  readonly payment_status: PaymentStatus | null;
  readonly expires_at: string;
  readonly created_at: string;
  readonly updated_at: string;
}

/** A pending session past its expiry is expired, whether or not the timer has run yet. */
export function effectiveSessionStatus(s: Pick<CheckoutSession, 'status' | 'expires_at'>, now: Date): SessionStatus {
  return isOpenSessionStatus(s.status) && Date.parse(s.expires_at) <= now.getTime() ? 'expired' : s.status;
}

/** SPEC.md 2.1: the payment status once a payment exists (success rather than completed), else the session status. */
export function reportedStatus(s: Pick<CheckoutSession, 'status' | 'expires_at' | 'payment_status'>, now: Date): string {
  const session = effectiveSessionStatus(s, now);
  if (session === 'expired' && s.payment_status !== 'success') return 'expired';
  if (session === 'cancelled') return 'cancelled';
  return s.payment_status ?? session;
}

/** The session as a shopper sees it: payable, or closed for one of three reasons. */
export type ShopperSessionState = 'open' | 'completed' | 'cancelled' | 'expired';

/** success_url / cancel_url with ?session_id=, as the sandbox pages and the hosted page send the shopper (SPEC.md 6.3). */
export function shopperReturnUrl(url: string, sessionId: string): string {
  const u = new URL(url);
  u.searchParams.set('session_id', sessionId);
  return u.toString();
}

export function shopperState(s: CheckoutSession): ShopperSessionState {
  if (s.status === 'completed') return 'completed';
  if (s.status === 'cancelled') return 'cancelled';
  if (s.status === 'expired' || s.status === 'failed') return 'expired';
  return 'open';
}
