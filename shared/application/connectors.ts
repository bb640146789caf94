/**
 * The provider side of pay-ins: one interface per method kind, as a payment
 * switch's connectors. The sandbox simulator implements them; a live provider
 * plugs in behind the same interfaces. No connector means METHOD_NOT_AVAILABLE.
 */
import type { CountryCode, CurrencyCode } from '../domain/geo';
import type { CardInput } from '../domain/payments/payment.schemas';

export type DeclineCode = 'CARD_DECLINED' | 'INSUFFICIENT_FUNDS' | 'EXPIRED_CARD' | 'INCORRECT_CVC';

export type CardOutcome =
  | { readonly kind: 'approved'; readonly authorizationCode: string }
  | { readonly kind: 'requires_3ds' }
  | { readonly kind: 'declined'; readonly code: DeclineCode; readonly message: string };

export interface CardConnector {
  authorize(req: {
    paymentId: string;
    amountMinor: number;
    currency: CurrencyCode;
    card: CardInput;
    installments: number;
  }): Promise<CardOutcome>;
  /** Completes a 3-D Secure challenge: authenticated -> approved, else declined. */
  completeChallenge(req: { paymentId: string; authenticated: boolean }): Promise<CardOutcome>;
}

export interface PixConnector {
  createCharge(req: {
    paymentId: string;
    amountMinor: number;
    merchantName: string;
    expiresAt: string;
  }): Promise<{ pixCode: string; txid: string }>;
}

/** Methods whose artefact the customer pays elsewhere: boleto, cash voucher, CIP, SPEI/bank transfer. */
export type VoucherKind = 'boleto' | 'cash' | 'cip' | 'spei' | 'bank_transfer';

export interface VoucherConnector {
  issue(req: {
    kind: VoucherKind;
    paymentId: string;
    amountMinor: number;
    currency: CurrencyCode;
    country: CountryCode;
    dueAt: string;
  }): Promise<Record<string, string>>;
}

export interface WalletConnector {
  /** The URL where the customer approves the payment in their wallet. */
  start(req: { paymentId: string; amountMinor: number; currency: CurrencyCode; country: CountryCode }): Promise<{ redirectUrl: string }>;
}

export interface Connectors {
  readonly card: CardConnector;
  readonly pix: PixConnector;
  readonly voucher: VoucherConnector;
  readonly wallet: WalletConnector;
}

export interface ConnectorRegistry {
  /** The connectors of a mode, or null when none is configured (live today). */
  forMode(livemode: boolean): Connectors | null;
}
