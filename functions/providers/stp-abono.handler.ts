/**
 * POST /providers/stp/{token}/abono: an incoming SPEI deposit from STP (DESIGN.md section 8). A wrong token is
 * 404 with nothing read; the deposit is read back from STP (consultaOrden) and only then recorded and matched
 * to its payment by CLABE and amount; one STP's query does not confirm is a 502, for STP to send it again.
 * Answered {"mensaje":"confirmar"}, or {"mensaje":"devolver","id":1} (account does not exist) for a CLABE that
 * is not a live payment's, or id 3 (account cancelled) for a payment already paid, expired or cancelled, so STP
 * returns the money.
 */
import { AppError } from '../../shared/domain/errors';
import { receiveSpeiDeposit } from '../../shared/application/rails';
import { httpHandler } from '../../shared/http/handler';
import { providerTokenPath } from '../../shared/domain/providers.schemas';
import { recordProviderAmountMismatch, recordProviderCallbacks } from '../../shared/observability/provider-metrics';
import { paymentDeps } from '../../shared/wiring';
import { STP } from '../../shared/adapters/providers/stp/stp.client';
import { readCallbackJson } from '../../shared/http/provider-callback-body';
import { logger } from '../../shared/observability';

/**
 * SPEI's return causes (causaDevolucion) we answer with: 1, the account does not exist (a CLABE that is no live
 * payment's); 3, the account is cancelled (the CLABE of a payment already paid, expired or cancelled).
 */
const RETURN_UNKNOWN_ACCOUNT = 1;
const RETURN_CLOSED_ACCOUNT = 3;

export const handler = httpHandler({
  route: 'stpAbonoCallback',
  path: providerTokenPath,
  handler: async ({ path, event }) => {
    try {
      const r = await receiveSpeiDeposit(paymentDeps(), path.token, () => readCallbackJson(event.body, event.isBase64Encoded));
      recordProviderCallbacks(STP, {
        Accepted: r.outcome === 'settled' ? 1 : 0,
        Rejected: 0,
        Unknown: r.outcome === 'returned' ? 1 : 0,
      });
      // Money kept that did not settle its payment (another amount) pages an operator.
      if (!r.duplicate && r.outcome === 'mismatch') recordProviderAmountMismatch(STP, 1);
      if (!r.returned) return { body: { mensaje: 'confirmar' as const } };
      return { body: { mensaje: 'devolver' as const, id: r.outcome === 'late' ? RETURN_CLOSED_ACCOUNT : RETURN_UNKNOWN_ACCOUNT } };
    } catch (e) {
      if (e instanceof AppError) {
        recordProviderCallbacks(STP, { Accepted: 0, Rejected: 1, Unknown: 0 });
        if (e.code === 'PROVIDER_UNAVAILABLE')
          logger.warn('STP deposit not confirmed by its query: answered 502 for STP to retry', { provider: STP });
      }
      throw e;
    }
  },
});
