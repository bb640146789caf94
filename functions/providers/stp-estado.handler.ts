/**
 * POST /providers/stp/{token}/estado: STP's order-state change (DESIGN.md section 8). A wrong token is 404
 * with nothing read; the order is read back from STP and what STP holds is applied; answered
 * {"mensaje":"recibido"} once applied. A change STP's query does not show yet is a 502: STP sends it again.
 * A change whose `id` is not the id STP gave our order (kept from registration) moves nothing and is logged.
 */
import { AppError } from '../../shared/domain/errors';
import { receivePayoutStateCallback } from '../../shared/application/payouts';
import { httpHandler } from '../../shared/http/handler';
import { providerTokenPath } from '../../shared/domain/providers.schemas';
import { recordProviderCallbacks } from '../../shared/observability/provider-metrics';
import { payoutDeps } from '../../shared/wiring';
import { STP } from '../../shared/adapters/providers/stp/stp.client';
import { readCallbackJson } from '../../shared/http/provider-callback-body';
import { logger } from '../../shared/observability';

export const handler = httpHandler({
  route: 'stpEstadoCallback',
  path: providerTokenPath,
  handler: async ({ path, event }) => {
    try {
      const r = await receivePayoutStateCallback(payoutDeps(), path.token, () => readCallbackJson(event.body, event.isBase64Encoded));
      const confirmed = r.outcome !== 'unknown' && r.outcome !== 'unconfirmed' && r.outcome !== 'mismatch';
      // A change naming another STP order id than our order's: nothing moved; recorded for an operator.
      if (r.outcome === 'mismatch')
        logger.warn('STP state change names another order id than ours: ignored', { provider: STP, outcome: r.outcome });
      recordProviderCallbacks(STP, {
        Accepted: confirmed ? 1 : 0,
        Rejected: r.outcome === 'unconfirmed' || r.outcome === 'mismatch' ? 1 : 0,
        Unknown: r.outcome === 'unknown' ? 1 : 0,
      });
      return { body: { mensaje: 'recibido' as const } };
    } catch (e) {
      if (e instanceof AppError && e.code !== 'PROVIDER_UNAVAILABLE')
        recordProviderCallbacks(STP, { Accepted: 0, Rejected: 1, Unknown: 0 });
      throw e;
    }
  },
});
