/** Voucher and wallet connectors: artefacts paid elsewhere (boleto, cash slip, CIP, SPEI), held vouchers, wallet redirects. */
import type { BillingAddress } from '../../domain/payments/payment.schemas';
import type { CountryCode, CurrencyCode } from '../../domain/geo';

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

/** A voucher (cash slip) issued by a provider that holds the payment: intent before call, its notification settles it. */
export interface HeldVoucherConnector {
  readonly provider: { readonly name: string; reference(paymentId: string): string };
  /** The method kinds and countries it issues (e.g. cash in Mexico: OXXO). */
  serves(kind: PaymentMethodKind, country: CountryCode): boolean;
  issue(req: {
    paymentId: string;
    kind: VoucherKind;
    amountMinor: number;
    currency: CurrencyCode;
    country: CountryCode;
    /** The shopper; a boleto's payer also carries the document (digits) and the billing address. */
    shopper: { readonly name: string; readonly email: string; readonly document: string; readonly address?: BillingAddress };
    /** When the voucher stops being payable (a boleto's due date). */
    dueAt: string;
    returnUrl: string;
  }): Promise<{ readonly artefact: Readonly<Record<string, string>>; readonly details: Readonly<Record<string, string>> }>;
}

type PaymentMethodKind = VoucherKind | 'card' | 'pix' | 'wallet';

/**
 * A crypto order in the sandbox: what the shopper is shown (a QR and a checkout page) and the simulated provider's
 * quote in USDT for the payment's own amount (the sandbox's provider prices it, as Binance Pay does live).
 */
export interface CryptoOrderConnector {
  order(req: { paymentId: string; amountMinor: number; currency: CurrencyCode }): Promise<{
    readonly qrContent: string;
    readonly checkoutUrl: string;
    readonly quote: { readonly currency: string; readonly amount: string };
  }>;
}

/** A redirect the shopper finishes elsewhere: a wallet's approval, or (in the sandbox) PSE's or online banking's bank page. */
export interface WalletConnector {
  /** The URL where the customer approves the payment in their wallet (or pays it at their bank: PSE, online banking). */
  start(req: { paymentId: string; amountMinor: number; currency: CurrencyCode; country: CountryCode }): Promise<{ redirectUrl: string }>;
}
