/**
 * POST /providers/binance-pay/notifications: Binance Pay's order and refund notifications (issue 41). The RSA
 * signature is verified over the raw body with the key Binance Pay publishes (its certificate API, cached by serial)
 * before anything of it is read: a forged one is 401 and moves nothing. A verified one only names the order, which
 * is read back from Binance Pay and applied; answered as Binance Pay asks once committed (a read-back with no answer
 * is 502: Binance Pay sends it again, and the reconciliation job reads the order back meanwhile).
 */
import { receiveProviderNotification } from '../../shared/http/local-notification';
import { httpHandler } from '../../shared/http/handler';
import { BINANCE_PAY } from '../../shared/adapters/providers/binance-pay/binance-pay.transformers';

export const handler = httpHandler({
  route: 'binancePayNotifications',
  handler: async ({ event }) => {
    await receiveProviderNotification(BINANCE_PAY, event);
    // Binance Pay's answer to a notification taken (binance-pay.notifications.ts WEBHOOK_ACKNOWLEDGEMENT; not imported, so
    // the route carries no connector module at its import).
    return { body: { returnCode: 'SUCCESS' as const, returnMessage: null } };
  },
});
