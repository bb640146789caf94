/**
 * Adyen's standard notifications (the callback parser): each item's HMAC verified before any field is read, then
 * mapped into our words (CardNotification), with what the notification log keeps of it.
 */
import type { CardNotification, CardNotifications } from '../../../application/providers';
import { CURRENCY_CODES, type CurrencyCode } from '../../../domain/geo';
import type { DisputeSignal } from '../../../domain/payments/dispute';
import * as z from '../../../domain/zod';
import type { AdyenConfig } from '../providers.config';
import { ADYEN } from './adyen.client';
import { hmacValid } from './adyen.hmac';
import { notificationItemSchema, notificationRequestSchema, type NotificationItem } from './adyen.schemas';
import { storedMethodIdOf } from './adyen.stored-cards.transformers';
import { declineOfReason, mandateIdOfReference, ourMinor, paymentIdOfReference, refundIdOfReference } from './adyen.transformers';

const isCurrency = (c: string): c is CurrencyCode => (CURRENCY_CODES as readonly string[]).includes(c);

const EVENTS: Readonly<Record<string, CardNotification['event']>> = {
  AUTHORISATION: 'authorisation',
  CANCELLATION: 'cancellation',
  TECHNICAL_CANCEL: 'cancellation',
  CANCEL_OR_REFUND: 'cancellation',
  CAPTURE: 'capture',
  REFUND: 'refund',
  REFUND_FAILED: 'refund_failed',
  REFUNDED_REVERSED: 'refund_failed',
  NOTIFICATION_OF_CHARGEBACK: 'dispute',
  DISPUTE_DEFENSE_PERIOD_ENDED: 'dispute',
  CHARGEBACK: 'dispute',
  CHARGEBACK_REVERSED: 'dispute',
  SECOND_CHARGEBACK: 'dispute',
  PREARBITRATION_WON: 'dispute',
  PREARBITRATION_LOST: 'dispute',
};

/**
 * Dispute notices in our words. CHARGEBACK withdraws the funds (its disputeStatus Lost or Accepted also ends the
 * case); CHARGEBACK_REVERSED and PREARBITRATION_WON return them; SECOND_CHARGEBACK and PREARBITRATION_LOST end the
 * case lost. disputeStatus is optional (Adyen does not send it for payments processed in Brazil), so no decision
 * depends on it alone. NOTIFICATION_OF_CHARGEBACK opens the case with its defense deadline and moves no money;
 * DISPUTE_DEFENSE_PERIOD_ENDED tells that deadline as passed (its event date). REQUEST_FOR_INFORMATION and the like:
 * logged only.
 */
export function disputeSignalOf(eventCode: string, disputeStatus: string | undefined): DisputeSignal | null {
  switch (eventCode) {
    case 'NOTIFICATION_OF_CHARGEBACK':
    case 'DISPUTE_DEFENSE_PERIOD_ENDED':
      return 'notified';
    case 'CHARGEBACK':
      return disputeStatus === 'Lost' || disputeStatus === 'Accepted' ? 'lost' : 'withdrawn';
    case 'CHARGEBACK_REVERSED':
    case 'PREARBITRATION_WON':
      return 'won';
    case 'SECOND_CHARGEBACK':
    case 'PREARBITRATION_LOST':
      return 'lost';
    default:
      return null;
  }
}

/**
 * The card a successful item says was stored: an AUTHORISATION's additionalData `tokenization.storedPaymentMethodId`
 * (or the `recurring.recurringDetailReference` it replaces); a RECURRING_CONTRACT's `recurring.recurringDetailReference`,
 * else its pspReference (which is the token: Adyen's webhook example gives both the same value).
 */
function storedMethodOf(i: NotificationItem): string | null {
  if (i.success !== 'true') return null;
  if (i.eventCode === 'AUTHORISATION') return storedMethodIdOf(i.additionalData);
  if (i.eventCode === 'RECURRING_CONTRACT')
    return storedMethodIdOf(i.additionalData) ?? storedMethodIdOf({ 'tokenization.storedPaymentMethodId': i.pspReference });
  return null;
}

/** An instant as ISO (UTC), or null when absent or not a date. */
const isoOf = (s: string | undefined) => {
  const t = s ? Date.parse(s) : NaN;
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

/** A dispute notice's defense deadline: defensePeriodEndsAt, or the event date of the period's end. */
const deadlineOf = (i: NotificationItem) =>
  i.eventCode === 'DISPUTE_DEFENSE_PERIOD_ENDED' ? isoOf(i.eventDate) : isoOf(i.additionalData?.defensePeriodEndsAt);

/** The notification as kept in our log: Adyen's own fields, never the signature or card data in additionalData. */
const logRecord = (i: NotificationItem) => ({
  event_code: i.eventCode,
  success: i.success === 'true',
  psp_reference: i.pspReference,
  original_reference: i.originalReference ?? null,
  merchant_reference: i.merchantReference,
  amount_value: i.amount.value,
  currency: i.amount.currency,
  event_date: i.eventDate ?? null,
  reason: i.reason?.slice(0, 256) ?? null,
  dispute_status: i.additionalData?.disputeStatus ?? null,
  chargeback_reason_code: i.additionalData?.chargebackReasonCode ?? null,
});

/**
 * Standard notifications: each item's HMAC (hmac_key_hex) is verified before any of its fields is used; an item
 * that does not verify, or is for another merchant account, is counted as forged and dropped.
 */
export function adyenNotifications(cfg: Pick<AdyenConfig, 'hmac_key_hex' | 'merchant_account'>): CardNotifications {
  return {
    provider: ADYEN,
    parse(body) {
      const envelope = z.safeParse(notificationRequestSchema, body);
      if (!envelope.success) return null;
      const items: CardNotification[] = [];
      let forged = 0;
      for (const wrapped of envelope.data.notificationItems) {
        const r = z.safeParse(notificationItemSchema, wrapped.NotificationRequestItem);
        if (!r.success || !hmacValid(r.data, cfg.hmac_key_hex) || r.data.merchantAccountCode !== cfg.merchant_account) {
          forged++;
          continue;
        }
        const i = r.data;
        const signal = disputeSignalOf(i.eventCode, i.additionalData?.disputeStatus);
        const event = EVENTS[i.eventCode] ?? 'other';
        const isRefund = event === 'refund' || event === 'refund_failed';
        const paymentId = paymentIdOfReference(i.merchantReference);
        const currency = i.amount.currency;
        const mandateId = mandateIdOfReference(i.merchantReference);
        const storedPaymentMethodId = storedMethodOf(i);
        items.push({
          key: `${i.pspReference}:${i.eventCode}`,
          event,
          eventCode: i.eventCode,
          success: i.success === 'true',
          paymentId,
          ...(paymentId ? { reference: i.merchantReference } : {}),
          refundId: isRefund ? refundIdOfReference(i.merchantReference) : null,
          pspReference: i.pspReference,
          amountMinor: isCurrency(currency) ? ourMinor(i.amount.value, currency) : i.amount.value,
          currency,
          record: logRecord(i),
          ...(signal && i.success === 'true'
            ? {
                dispute: {
                  signal,
                  reasonCode: i.additionalData?.chargebackReasonCode?.slice(0, 32) ?? null,
                  deadline: deadlineOf(i),
                },
              }
            : {}),
          ...(i.additionalData?.authCode ? { authorizationCode: i.additionalData.authCode } : {}),
          ...(event === 'authorisation' && i.success === 'false' ? { decline: declineOfReason(i.reason) } : {}),
          ...(mandateId ? { mandateId } : {}),
          ...(storedPaymentMethodId ? { storedPaymentMethodId } : {}),
        });
      }
      return { items, forged };
    },
  };
}
