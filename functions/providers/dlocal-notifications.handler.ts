/**
 * POST /providers/dlocal/notifications: dLocal's pay-in notifications (issue 32). The V2-HMAC-SHA256 signature is
 * verified over the raw body before anything of it is read: a forged one is 401 and moves nothing. A verified one
 * only names the payment, which is read back from dLocal and applied; answered 200 once committed (a read-back
 * with no answer is 502: dLocal sends it again, and the reconciliation job reads the payment back meanwhile).
 */
import { AppError } from '../../shared/domain/errors';
import { receiveLocalNotification } from '../../shared/application/rails';
import { httpHandler } from '../../shared/http/handler';
import { recordProviderAmountMismatch, recordProviderCallbacks } from '../../shared/observability/provider-metrics';
import { logger } from '../../shared/observability';
import { paymentDeps } from '../../shared/wiring';
import { DLOCAL } from '../../shared/adapters/providers/dlocal/dlocal.client';

export const handler = httpHandler({
  route: 'dlocalNotifications',
  handler: async ({ event }) => {
    const raw = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
    try {
      const r = await receiveLocalNotification(paymentDeps(), DLOCAL, event.headers ?? {}, raw);
      const unsettled = r.outcome === 'mismatch' || r.outcome === 'late';
      recordProviderCallbacks(DLOCAL, {
        Accepted: r.outcome === 'unknown' || unsettled ? 0 : 1,
        Rejected: unsettled ? 1 : 0,
        Unknown: r.outcome === 'unknown' ? 1 : 0,
      });
      if (unsettled) {
        // Money dLocal collected that is not settled here: another amount, or a payment already closed. Pages.
        recordProviderAmountMismatch(DLOCAL);
        logger.error(
          r.outcome === 'late'
            ? 'dLocal reports paid a payment closed here: not settled'
            : 'dLocal reports another amount than the payment’s: recorded, not settled',
          { provider: DLOCAL },
        );
      }
      return { body: { received: 1 } };
    } catch (e) {
      if (e instanceof AppError && e.code !== 'PROVIDER_UNAVAILABLE') {
        recordProviderCallbacks(DLOCAL, { Accepted: 0, Rejected: 1, Unknown: 0 });
        if (e.code === 'UNAUTHORIZED') logger.warn('dLocal notification refused: its signature does not verify', { provider: DLOCAL });
      }
      throw e;
    }
  },
});
