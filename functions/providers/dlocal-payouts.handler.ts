/**
 * POST /providers/dlocal/payouts: dLocal's payout notification (the notification_url each payout is created with).
 * The signature is verified over the raw body before anything of it is read (a forged one is 401 and moves
 * nothing); the payout is then read back from dLocal by our external_id and what dLocal holds applied (never the
 * body's status). A payout dLocal's read-back does not show in that state yet is a 502: dLocal sends it again.
 */
import { AppError } from '../../shared/domain/errors';
import { callbackCounts, receiveSignedPayoutNotification } from '../../shared/application/payouts';
import { httpHandler } from '../../shared/http/handler';
import { recordProviderCallbacks } from '../../shared/observability/provider-metrics';
import { payoutDeps } from '../../shared/wiring';
import { DLOCAL } from '../../shared/adapters/providers/dlocal/dlocal.client';
import { logger } from '../../shared/observability';

export const handler = httpHandler({
  route: 'dlocalPayoutNotifications',
  handler: async ({ event }) => {
    const raw = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
    try {
      const r = await receiveSignedPayoutNotification(payoutDeps(), event.headers ?? {}, raw);
      if (r.outcomes.includes('mismatch'))
        logger.warn('dLocal payout notification names another payout than ours: ignored', { provider: DLOCAL });
      recordProviderCallbacks(DLOCAL, callbackCounts(r.outcomes));
      return { body: { received: r.outcomes.length } };
    } catch (e) {
      if (e instanceof AppError && e.code !== 'PROVIDER_UNAVAILABLE') {
        recordProviderCallbacks(DLOCAL, { Accepted: 0, Rejected: 1, Unknown: 0 });
        if (e.code === 'UNAUTHORIZED') logger.warn('dLocal payout notification with a bad signature: refused', { provider: DLOCAL });
      }
      throw e;
    }
  },
});
