/**
 * A held local payment the shopper finishes on the provider's page (issue 32: PSE, Nequi, Yape, Webpay, a bank
 * transfer): the open payment's redirect_url is the provider's page, which sends the shopper back to our return
 * route (held-local.ts completeLocalReturn) and from there to the merchant's page, as a card's 3-D Secure does.
 */
import type { Payment } from '../../domain/payments/payment';

/** What an open redirect payment shows: where the shopper goes to pay. */
export const redirectPatch = (redirectUrl: string): Partial<Payment> => ({ redirect_url: redirectUrl });
