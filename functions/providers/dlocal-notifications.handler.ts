/**
 * POST /providers/dlocal/notifications: dLocal's pay-in notifications (issue 32). The V2-HMAC-SHA256 signature is
 * verified over the raw body before anything of it is read: a forged one is 401 and moves nothing. A verified one
 * only names the payment, which is read back from dLocal and applied; answered 200 once committed (a read-back
 * with no answer is 502: dLocal sends it again, and the reconciliation job reads the payment back meanwhile). A
 * refund's notification settles the payment's pending refunds, each read back from dLocal (refunds-live.ts).
 */
import { receiveProviderNotification } from '../../shared/http/local-notification';
import { httpHandler } from '../../shared/http/handler';
import { DLOCAL } from '../../shared/adapters/providers/dlocal/dlocal.client';

export const handler = httpHandler({
  route: 'dlocalNotifications',
  handler: async ({ event }) => {
    await receiveProviderNotification(DLOCAL, event);
    return { body: { received: 1 } };
  },
});
