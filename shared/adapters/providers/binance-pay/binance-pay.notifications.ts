/**
 * Binance Pay's webhooks (webhook-common, webhook-query-certificate, order-notification, refund-order-notification):
 * a POST of {bizType, bizId, bizIdStr, bizStatus, data (a JSON string)}, signed base64 RSA SHA-256 over
 * timestamp\nnonce\nbody\n with the key the certificate API publishes under the serial BinancePay-Certificate-SN
 * names. The public keys are fetched lazily (a signed POST /binancepay/openapi/certificates), cached per serial, and
 * fetched again when a webhook names a serial we do not hold (a rotation), at most once per `refreshEveryMs` and one
 * fetch in flight at a time. The signature is checked over the raw body before anything of it is read. A verified
 * webhook only names what to read back: the use case never takes a status from it. When the keys cannot be fetched
 * (no answer) parse rejects with ProviderUnavailable: the route answers 5xx and Binance sends it again.
 * Answered {"returnCode":"SUCCESS","returnMessage":null}, as the notification pages ask.
 */
import * as z from '../../../domain/zod';
import type { LocalNotification, LocalNotificationParse, LocalPaymentNotifications } from '../../../application/providers';
import { logger } from '../../../observability';
import type { BinancePayClient } from './binance-pay.client';
import { certificatesAnswerSchema, refundInfoSchema, webhookDataSchema, webhookSchema } from './binance-pay.schemas';
import { webhookHeadersOf, webhookSignatureValid, type Headers } from './binance-pay.signature';
import { BINANCE_PAY, paymentIdOfMerchantTradeNo, refundIdOfRequestId } from './binance-pay.transformers';

export const WEBHOOK_ACKNOWLEDGEMENT = { returnCode: 'SUCCESS', returnMessage: null } as const;

export interface BinancePayNotifications extends LocalPaymentNotifications {
  parse(headers: Headers, rawBody: string): Promise<LocalNotificationParse>;
  /** Certificate fetches made so far (the tests check the cache). */
  readonly certificateFetches: () => number;
}

function json(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

export function binancePayNotifications(
  client: BinancePayClient,
  opts: { readonly refreshEveryMs?: number; readonly now?: () => number } = {},
): BinancePayNotifications {
  const refreshEveryMs = opts.refreshEveryMs ?? 30_000;
  const now = opts.now ?? Date.now;
  const keys = new Map<string, string>();
  let fetches = 0;
  let lastFetch = -Infinity;
  let inFlight: Promise<void> | null = null;

  async function fetchKeys(): Promise<void> {
    fetches += 1;
    lastFetch = now();
    const a = await client.call('certificates', {}, certificatesAnswerSchema);
    if ('refused' in a) {
      logger.error('Binance Pay refused the certificate query', { provider: BINANCE_PAY, binance_code: a.refused.code });
      return;
    }
    for (const c of a.ok) keys.set(c.certSerial, c.certPublic);
  }

  async function keyOf(serial: string): Promise<string | undefined> {
    if (keys.has(serial)) return keys.get(serial);
    if (!inFlight && now() - lastFetch >= refreshEveryMs)
      inFlight = fetchKeys().finally(() => {
        inFlight = null;
      });
    if (inFlight) await inFlight;
    return keys.get(serial);
  }

  function itemOf(rawBody: string): LocalNotification | null {
    const w = z.safeParse(webhookSchema, json(rawBody));
    if (!w.success) return null;
    const d = z.safeParse(webhookDataSchema, json(w.data.data));
    if (!d.success) return null;
    const merchantTradeNo = d.data.merchantTradeNo;
    const paymentId = merchantTradeNo ? paymentIdOfMerchantTradeNo(merchantTradeNo) : null;
    const prepayId = w.data.bizIdStr;
    if (w.data.bizType === 'PAY') return { kind: 'payment', paymentId, providerPaymentId: prepayId, claimed: w.data.bizStatus };
    if (w.data.bizType === 'PAY_REFUND') {
      const raw = d.data.refundInfo;
      const info = z.safeParse(refundInfoSchema, typeof raw === 'string' ? json(raw) : raw);
      const refundRequestId = info.success ? info.data.refundRequestId : null;
      return {
        kind: 'refund',
        refundId: refundRequestId ? refundIdOfRequestId(refundRequestId) : null,
        paymentId,
        providerRefundId: refundRequestId ?? prepayId,
        providerPaymentId: prepayId,
        claimed: w.data.bizStatus,
      };
    }
    return null; // another kind of webhook (payouts, merchant QR codes): not one we take
  }

  return {
    provider: BINANCE_PAY,
    acknowledgement: WEBHOOK_ACKNOWLEDGEMENT,
    certificateFetches: () => fetches,
    async parse(headers, rawBody) {
      const h = webhookHeadersOf(headers);
      if (!h) return { forged: true };
      const key = await keyOf(h.serial);
      if (!key || !webhookSignatureValid(key, h, rawBody)) return { forged: true };
      const item = itemOf(rawBody);
      return item ? { item } : null;
    },
  };
}
