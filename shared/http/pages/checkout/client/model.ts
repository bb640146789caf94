/// <reference lib="dom" />
/** What the server hands the page script in #model (JSON). */
import type { PagePayment } from '../../../views/checkout-page.view';
import type { CountryCode, CurrencyCode } from '../../../../domain/geo';
import type { Catalog } from '../i18n/en';

export interface PageModel {
  readonly sessionId: string;
  /** BCP 47 tag for Intl. */
  readonly tag: string;
  readonly country: CountryCode;
  readonly currency: CurrencyCode;
  readonly amountMinor: number;
  readonly merchantName: string;
  readonly sandbox: boolean;
  /** success_url with ?session_id=. */
  readonly successUrl: string;
  /** The session's latest payment, so a reload shows it instead of a new form. */
  readonly payment: PagePayment | null;
  readonly installments: readonly { readonly count: number; readonly perInstallmentMinor: number }[];
  readonly messages: Catalog;
}

export type { PagePayment };
