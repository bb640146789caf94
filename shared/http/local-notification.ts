/**
 * A local provider's notification route (dLocal's, Binance Pay's): the raw body handed to the use case (its signature
 * is verified over those bytes), its outcome counted per provider, and money the provider collected that is not
 * settled here (another amount, a payment already closed) logged as an error, which pages.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { AppError } from '../domain/errors';
import { receiveLocalNotification, type LocalNotificationOutcome } from '../application/rails';
import { recordProviderAmountMismatch, recordProviderCallbacks } from '../observability/provider-metrics';
import { logger } from '../observability';
import { paymentDeps } from '../wiring';

export async function receiveProviderNotification(
  provider: string,
  event: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded' | 'headers'>,
): Promise<LocalNotificationOutcome> {
  const raw = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
  try {
    const r = await receiveLocalNotification(paymentDeps(), provider, event.headers ?? {}, raw);
    const unsettled = r.outcome === 'mismatch' || r.outcome === 'late';
    recordProviderCallbacks(provider, {
      Accepted: r.outcome === 'unknown' || unsettled ? 0 : 1,
      Rejected: unsettled ? 1 : 0,
      Unknown: r.outcome === 'unknown' ? 1 : 0,
    });
    if (unsettled) {
      recordProviderAmountMismatch(provider);
      logger.error(
        r.outcome === 'late'
          ? 'The provider reports paid a payment closed here: not settled'
          : 'The provider reports another amount than the payment’s: recorded, not settled',
        { provider },
      );
    }
    return r.outcome;
  } catch (e) {
    if (e instanceof AppError && e.code !== 'PROVIDER_UNAVAILABLE') {
      recordProviderCallbacks(provider, { Accepted: 0, Rejected: 1, Unknown: 0 });
      if (e.code === 'UNAUTHORIZED') logger.warn('Provider notification refused: its signature does not verify', { provider });
    }
    throw e;
  }
}
