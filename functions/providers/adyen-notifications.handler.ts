/**
 * POST /providers/adyen/notifications: Adyen's standard notifications (issue 23). Each item's HMAC is verified
 * before it is read; verified items are logged and applied (idempotent by pspReference and eventCode) and then,
 * and only then, Adyen is answered `[accepted]`. A failure to commit answers 500, so Adyen retries.
 */
import { AppError } from '../../shared/domain/errors';
import { receiveCardNotifications } from '../../shared/application/rails';
import { httpHandler } from '../../shared/http/handler';
import { recordProviderAmountMismatch, recordProviderCallbacks } from '../../shared/observability/provider-metrics';
import { applyCardMandateNotification } from '../../shared/application/mandates';
import { mandateDeps, paymentDeps } from '../../shared/wiring';
import { ADYEN } from '../../shared/adapters/providers/adyen/adyen.client';

export const handler = httpHandler({
  route: 'adyenNotifications',
  handler: async ({ event }) => {
    const r = await receiveCardNotifications(
      paymentDeps(),
      ADYEN,
      () => readJson(event.body, event.isBase64Encoded),
      async (n) =>
        n.event === 'authorisation' || n.storedPaymentMethodId
          ? (await applyCardMandateNotification(mandateDeps(), n.mandateId!, {
              success: n.success,
              pspReference: n.pspReference,
              ...(n.storedPaymentMethodId ? { storedPaymentMethodId: n.storedPaymentMethodId } : {}),
            })) === 'moved'
            ? 'applied'
            : 'ignored'
          : 'ignored',
    );
    recordProviderCallbacks(ADYEN, {
      Accepted: r.applied + r.duplicate + r.ignored + r.mismatch,
      Rejected: r.forged,
      Unknown: r.unknown,
    });
    if (r.mismatch > 0) recordProviderAmountMismatch(ADYEN, r.mismatch);
    // An item that cannot apply yet (a dispute before its payment's own outcome) is not acknowledged: Adyen resends
    // the notification, and the log lets every other item of it through as a duplicate.
    if (r.deferred > 0) return { status: 409, raw: { contentType: 'text/plain; charset=utf-8', text: 'retry' } };
    return { raw: { contentType: 'text/plain; charset=utf-8', text: '[accepted]' } };
  },
});

function readJson(body: string | undefined, base64: boolean | undefined): unknown {
  if (!body) return undefined;
  try {
    return JSON.parse(base64 ? Buffer.from(body, 'base64').toString('utf8') : body);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'The notification body is not valid JSON.', {
      details: [{ field: 'body', message: 'malformed JSON' }],
    });
  }
}
