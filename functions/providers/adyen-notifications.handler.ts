/**
 * POST /providers/adyen/notifications: Adyen's standard notifications (issue 23). Each item's HMAC is verified
 * before it is read; verified items are applied (idempotent by pspReference and event) and then, and only then,
 * Adyen is answered `[accepted]`. A failure to commit answers 500, so Adyen retries.
 */
import { AppError } from '../../shared/domain/errors';
import { receiveCardNotifications } from '../../shared/application/card-notifications';
import { httpHandler } from '../../shared/http/handler';
import { recordProviderCallbacks } from '../../shared/observability/provider-metrics';
import { paymentDeps } from '../../shared/wiring';
import { ADYEN } from '../../shared/adapters/providers/adyen/adyen.client';

export const handler = httpHandler({
  route: 'adyenNotifications',
  handler: async ({ event }) => {
    const r = await receiveCardNotifications(paymentDeps(), () => readJson(event.body, event.isBase64Encoded));
    recordProviderCallbacks(ADYEN, { Accepted: r.applied + r.duplicate + r.ignored, Rejected: r.forged, Unknown: r.unknown });
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
