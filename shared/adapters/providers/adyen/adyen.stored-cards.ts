/**
 * Cards on file through Adyen (Checkout API v71 tokenization, DESIGN.md 9.3): a card mandate's approval is a
 * zero-value authorisation with 3-D Secure that stores the card under a shopperReference derived from the mandate;
 * each charge is a merchant-initiated payment on the token (ContAuth, Subscription); a cancelled mandate's token is
 * deleted. Requests and answers go through the Adyen client (Idempotency-Key on every POST, errors classified there).
 */
import { createHash } from 'node:crypto';
import { ProviderRejected, type StoredCardConnector } from '../../../application/providers';
import type { CardSummary } from '../../../domain/payments/payment';
import { ADYEN, type AdyenClient } from './adyen.client';
import { paymentResponseSchema, storedPaymentMethodsResponseSchema, type PaymentResponse } from './adyen.schemas';
import {
  cardSummaryOfAnswer,
  cardSummaryOfInput,
  chargeOutcomeOf,
  storeCardRequest,
  storedChargeRequest,
  storedMethodIdOf,
  storeOutcomeOf,
  brandOfVariant,
} from './adyen.stored-cards.transformers';
import { idempotencyKeyOf, mandateReferenceOf, shopperReferenceOf } from './adyen.transformers';

/**
 * What a DELETE of a token that is no longer there answers: 404, or Adyen's recurring errors 800 "Contract not
 * found" and 803 "PaymentDetail not found" (which Adyen's pages do not tie to this endpoint: assumed, see
 * docs/live-providers.md). Either way nothing can be charged on it.
 */
const ALREADY_GONE = new Set(['adyen_800', 'adyen_803']);

const storedMethodsPath = (shopperReference: string, merchantAccount: string, id?: string) =>
  `/storedPaymentMethods${id ? `/${encodeURIComponent(id)}` : ''}?${new URLSearchParams({ shopperReference, merchantAccount })}`;

export function adyenStoredCards(cfg: { merchant_account: string }, client: AdyenClient): StoredCardConnector {
  /** The stored card's summary as Adyen lists it under the shopper (a 3-D Secure return's answer may not carry it). */
  async function listedSummary(shopperReference: string, id: string): Promise<CardSummary | null> {
    const list = await client.get(
      'storedPaymentMethods',
      storedMethodsPath(shopperReference, cfg.merchant_account),
      storedPaymentMethodsResponseSchema,
    );
    const m = list.storedPaymentMethods?.find((x) => x.id === id);
    return m?.lastFour && /^\d{4}$/.test(m.lastFour) ? { brand: brandOfVariant(m.brand), last_four: m.lastFour } : null;
  }

  /** The approval's outcome from an answer that carries no card input: the summary from the answer, else the list. */
  async function storedFromAnswer(r: PaymentResponse, shopperReference: string) {
    const id = r.resultCode === 'Authorised' ? storedMethodIdOf(r.additionalData) : null;
    const card = cardSummaryOfAnswer(r) ??
      (id ? await listedSummary(shopperReference, id) : null) ?? { brand: brandOfVariant(r.paymentMethod?.brand), last_four: '' };
    return storeOutcomeOf(r, card);
  }

  return {
    provider: { name: ADYEN, reference: mandateReferenceOf, shopperReference: shopperReferenceOf },
    async store(req) {
      const body = storeCardRequest(req, cfg.merchant_account);
      const r = await client.post('payments', '/payments', paymentResponseSchema, body, idempotencyKeyOf('payment', body.reference));
      return storeOutcomeOf(r, cardSummaryOfInput(req.card.number));
    },
    async completeStore({ mandateId, redirectResult }) {
      // One key per result token, as the card payment's return: a repeated return repeats the same call.
      const token = createHash('sha256').update(redirectResult).digest('hex').slice(0, 16);
      const r = await client.post(
        'paymentDetails',
        '/payments/details',
        paymentResponseSchema,
        { details: { redirectResult } },
        idempotencyKeyOf('details', `${mandateReferenceOf(mandateId)}-${token}`),
      );
      // The shopper the token is stored under, as the answer names it (else the mandate's derived one).
      return storedFromAnswer(r, r.additionalData?.['tokenization.shopperReference'] ?? shopperReferenceOf(mandateId));
    },
    async charge(req) {
      const body = storedChargeRequest(req, cfg.merchant_account);
      const r = await client.post('payments', '/payments', paymentResponseSchema, body, idempotencyKeyOf('payment', body.reference));
      return chargeOutcomeOf(r);
    },
    async disable({ shopperReference, storedPaymentMethodId }) {
      try {
        await client.delete('storedPaymentMethods', storedMethodsPath(shopperReference, cfg.merchant_account, storedPaymentMethodId));
      } catch (e) {
        if (e instanceof ProviderRejected && (e.status === 404 || ALREADY_GONE.has(e.code))) return;
        throw e;
      }
    },
  };
}
