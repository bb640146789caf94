/**
 * POST /providers/dlocal/chargebacks: dLocal's chargeback notices (its merchant chargeback notification URL, set with
 * dLocal). The V2-HMAC-SHA256 signature is verified over the raw body before anything of it is read: a forged one is
 * 401 and moves nothing. A verified one only names the chargeback, which is read back from dLocal and applied to the
 * dLocal card payment it disputes (card-chargebacks.ts); answered 200 once committed (a read-back with no answer is
 * 502, a dispute of a payment whose own outcome has not arrived 409: dLocal sends it again). Another amount or
 * currency than the payment's is recorded, never applied, and pages ProviderAmountMismatch.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { AppError } from '../../shared/domain/errors';
import { receiveCardChargeback } from '../../shared/application/rails';
import { httpHandler } from '../../shared/http/handler';
import { logger } from '../../shared/observability';
import { recordProviderAmountMismatch, recordProviderCallbacks } from '../../shared/observability/provider-metrics';
import { paymentDeps } from '../../shared/wiring';
import { DLOCAL } from '../../shared/adapters/providers/dlocal/dlocal.client';

const rawOf = (event: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'>) =>
  event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';

export const handler = httpHandler({
  route: 'dlocalChargebacks',
  handler: async ({ event }) => {
    let r: Awaited<ReturnType<typeof receiveCardChargeback>>;
    try {
      r = await receiveCardChargeback(paymentDeps(), DLOCAL, event.headers ?? {}, rawOf(event));
    } catch (e) {
      if (e instanceof AppError && e.code !== 'PROVIDER_UNAVAILABLE') {
        recordProviderCallbacks(DLOCAL, { Accepted: 0, Rejected: 1, Unknown: 0 });
        if (e.code === 'UNAUTHORIZED') logger.warn('dLocal chargeback notice refused: its signature does not verify', { provider: DLOCAL });
      }
      throw e;
    }
    recordProviderCallbacks(DLOCAL, {
      Accepted: r.outcome === 'unknown' || r.outcome === 'mismatch' ? 0 : 1,
      Rejected: r.outcome === 'mismatch' ? 1 : 0,
      Unknown: r.outcome === 'unknown' ? 1 : 0,
    });
    if (r.outcome === 'mismatch') {
      recordProviderAmountMismatch(DLOCAL);
      logger.error('dLocal reports a chargeback that is not the payment’s (amount, currency or case): recorded, not applied', {
        provider: DLOCAL,
        status: r.status,
      });
    }
    if (r.outcome === 'deferred') return { status: 409, body: { received: 0 } };
    return { body: { received: 1 } };
  },
});
