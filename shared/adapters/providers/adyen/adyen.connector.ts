/**
 * The Adyen connector (Checkout API v71): live card payments held by Adyen (authorise, 3-D Secure by redirect
 * and its details call, technical cancel by our reference), and cards stored for mandates (adyen.stored-cards.ts);
 * and chargebacks defended through the Disputes API v30 (adyen.disputes.ts).
 */
import { isValidTypeableLine, typeableLineToBarcode } from '../../../domain/payments/boleto';
import {
  type CardDisputeConnector,
  type CardNotifications,
  type CardRefundConnector,
  type HeldCardConnector,
  type HeldVoucherConnector,
  type StoredCardConnector,
  ProviderRejected,
  ProviderUnavailable,
} from '../../../application/providers';
import * as z from '../../../domain/zod';
import type { AdyenConfig } from '../providers.config';
import { adyenClient, type AdyenClient, ADYEN } from './adyen.client';
import { adyenCardDisputes } from './adyen.disputes';
import { disputesBaseUrlOf } from './adyen.endpoints';
import { adyenNotifications } from './adyen.notifications';
import { adyenStoredCards } from './adyen.stored-cards';
import { cancelResponseSchema, paymentResponseSchema, refundResponseSchema, voucherActionSchema } from './adyen.schemas';
import {
  cardPaymentRequest,
  idempotencyKeyOf,
  ourAttemptReference,
  outcomeOf,
  paymentReferenceOf,
  refundReferenceOf,
  adyenAmount,
  countryAlpha2,
  shopperNameOf,
} from './adyen.transformers';
import { createHash } from 'node:crypto';

export interface AdyenConnectors {
  readonly heldCard: HeldCardConnector;
  readonly notifications: CardNotifications;
  readonly refunds: CardRefundConnector;
  readonly voucher: HeldVoucherConnector;
  /** Cards stored for card mandates (DESIGN.md 9.3). */
  readonly storedCards: StoredCardConnector;
  /** Chargebacks defended through the Disputes API v30 (DESIGN.md 9.4), on its own root over the same client. */
  readonly disputes: CardDisputeConnector;
  readonly client: AdyenClient;
}

export function adyenConnectors(cfg: AdyenConfig, client: AdyenClient = adyenClient(cfg)): AdyenConnectors {
  const heldCard: HeldCardConnector = {
    provider: { name: ADYEN, reference: paymentReferenceOf },
    cancelAfterSeconds: cfg.cancel_after_seconds ?? 900,
    async authorize(req) {
      const body = cardPaymentRequest(req, cfg.merchant_account);
      const r = await client.post('payments', '/payments', paymentResponseSchema, body, idempotencyKeyOf('payment', body.reference));
      return outcomeOf(r);
    },
    async completeRedirect({ paymentId, redirectResult, reference }) {
      // One key per result token: a repeated return repeats the same call, a new token is a new call.
      const token = createHash('sha256').update(redirectResult).digest('hex').slice(0, 16);
      const r = await client.post(
        'paymentDetails',
        '/payments/details',
        paymentResponseSchema,
        { details: { redirectResult } },
        idempotencyKeyOf('details', `${ourAttemptReference(paymentId, reference)}-${token}`),
      );
      return outcomeOf(r);
    },
    // Adyen has no read-back by our reference: a call that got no answer never fails over, it is cancelled later.
    async cancelByReference(paymentId, o = {}) {
      const reference = ourAttemptReference(paymentId, o.reference);
      await client.post(
        'cancels',
        '/cancels',
        cancelResponseSchema,
        { merchantAccount: cfg.merchant_account, paymentReference: reference },
        idempotencyKeyOf('cancel', reference),
      );
    },
  };
  const refunds: CardRefundConnector = {
    provider: { name: ADYEN, reference: refundReferenceOf },
    async send({ pspReference, refundId, amountMinor, currency }) {
      const reference = refundReferenceOf(refundId);
      await client.post(
        'refunds',
        `/payments/${encodeURIComponent(pspReference)}/refunds`,
        refundResponseSchema,
        { merchantAccount: cfg.merchant_account, amount: adyenAmount(amountMinor, currency), reference },
        idempotencyKeyOf('refund', reference),
      );
      // Adyen answers `received`: the REFUND or REFUND_FAILED notification settles it.
      return { refundId, kind: 'pending' };
    },
  };
  // OXXO (cash in Mexico) and boleto (Brazil: registered with the payer's CPF/CNPJ and billing address).
  const voucher: HeldVoucherConnector = {
    provider: { name: ADYEN, reference: paymentReferenceOf },
    serves: (kind, country) => (kind === 'cash' && country === 'MEX') || (kind === 'boleto' && country === 'BRA'),
    async issue(req) {
      const reference = paymentReferenceOf(req.paymentId);
      const boleto = req.kind === 'boleto';
      const address = req.shopper.address;
      const r = await client.post(
        'payments',
        '/payments',
        paymentResponseSchema,
        {
          merchantAccount: cfg.merchant_account,
          reference,
          amount: adyenAmount(req.amountMinor, req.currency),
          paymentMethod: { type: boleto ? 'boletobancario' : 'oxxo' },
          returnUrl: req.returnUrl,
          countryCode: countryAlpha2(req.country),
          shopperName: shopperNameOf(req.shopper.name),
          shopperEmail: req.shopper.email,
          ...(boleto
            ? {
                socialSecurityNumber: req.shopper.document,
                deliveryDate: req.dueAt,
                ...(address
                  ? {
                      billingAddress: {
                        street: address.street,
                        houseNumberOrName: address.number,
                        postalCode: address.postal_code,
                        city: address.city,
                        stateOrProvince: address.state,
                        country: 'BR',
                      },
                    }
                  : {}),
              }
            : {}),
        },
        idempotencyKeyOf('payment', reference),
      );
      if (r.resultCode === 'Refused' || r.resultCode === 'Error' || r.resultCode === 'Cancelled')
        throw new ProviderRejected(ADYEN, 'payments', `result_${r.resultCode.toLowerCase()}`, 200);
      const action = z.safeParse(voucherActionSchema, r.action);
      if (r.resultCode !== 'PresentToShopper' || !action.success || !action.data.reference)
        throw new ProviderUnavailable(ADYEN, 'payments', `no voucher in the answer (${r.resultCode})`);
      const details: Record<string, string> = {
        ...(r.pspReference ? { psp_reference: r.pspReference } : {}),
        ...(action.data.downloadUrl ? { voucher_url: action.data.downloadUrl } : {}),
        ...(action.data.expiresAt ? { voucher_expires_at: action.data.expiresAt } : {}),
      };
      if (!boleto) return { artefact: { voucher_reference: action.data.reference }, details };
      // Adyen's boleto reference is the typeable line (digits, with or without its dots and spaces).
      const line = action.data.reference.replace(/\D/g, '');
      if (!isValidTypeableLine(line)) throw new ProviderUnavailable(ADYEN, 'payments', 'the boleto line in the answer is not valid');
      const artefact: Record<string, string> = {
        boleto_line: line,
        boleto_barcode: typeableLineToBarcode(line),
        due_date: (action.data.expiresAt ?? req.dueAt).slice(0, 10),
      };
      return { artefact, details };
    },
  };
  const storedCards = adyenStoredCards(cfg, client);
  const disputes = adyenCardDisputes(cfg, client.at(disputesBaseUrlOf(cfg)));
  return { heldCard, notifications: adyenNotifications(cfg), refunds, voucher, storedCards, disputes, client };
}
