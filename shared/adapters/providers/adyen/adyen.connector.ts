/**
 * The Adyen connector (Checkout API v71): live card payments held by Adyen (authorise, 3-D Secure by redirect
 * and its details call, technical cancel by our reference).
 */
import type { HeldCardConnector } from '../../../application/connectors';
import type { AdyenConfig } from '../providers.config';
import { adyenClient, type AdyenClient } from './adyen.client';
import { cancelResponseSchema, paymentResponseSchema } from './adyen.schemas';
import { ADYEN } from './adyen.client';
import { cardPaymentRequest, idempotencyKeyOf, outcomeOf, paymentReferenceOf } from './adyen.transformers';
import { createHash } from 'node:crypto';

export interface AdyenConnectors {
  readonly heldCard: HeldCardConnector;
  readonly client: AdyenClient;
}

export function adyenConnectors(cfg: AdyenConfig, client: AdyenClient = adyenClient(cfg)): AdyenConnectors {
  const heldCard: HeldCardConnector = {
    provider: { name: ADYEN, reference: paymentReferenceOf },
    async authorize(req) {
      const body = cardPaymentRequest(req, cfg.merchant_account);
      const r = await client.post('payments', '/payments', paymentResponseSchema, body, idempotencyKeyOf('payment', body.reference));
      return outcomeOf(r);
    },
    async completeRedirect({ paymentId, redirectResult }) {
      // One key per result token: a repeated return repeats the same call, a new token is a new call.
      const token = createHash('sha256').update(redirectResult).digest('hex').slice(0, 16);
      const r = await client.post(
        'paymentDetails',
        '/payments/details',
        paymentResponseSchema,
        { details: { redirectResult } },
        idempotencyKeyOf('details', `${paymentReferenceOf(paymentId)}-${token}`),
      );
      return outcomeOf(r);
    },
    async cancelByReference(paymentId) {
      const reference = paymentReferenceOf(paymentId);
      await client.post(
        'cancels',
        '/cancels',
        cancelResponseSchema,
        { merchantAccount: cfg.merchant_account, paymentReference: reference },
        idempotencyKeyOf('cancel', reference),
      );
    },
  };
  return { heldCard, client };
}
