/**
 * POST /providers/stp/{token}/abono: an incoming SPEI deposit from STP (DESIGN.md section 8). A wrong token is
 * 404 with nothing read; the deposit is recorded, then matched to its payment by CLABE and amount. Answered
 * {"mensaje":"confirmar"}, or {"mensaje":"devolver","id":1} (account does not exist) for a CLABE that is not
 * a live payment's, so STP returns the money.
 */
import { AppError } from '../../shared/domain/errors';
import { receiveSpeiDeposit } from '../../shared/application/spei-deposits';
import { httpHandler } from '../../shared/http/handler';
import { providerTokenPath } from '../../shared/domain/providers.schemas';
import { recordProviderAmountMismatch, recordProviderCallbacks } from '../../shared/observability/provider-metrics';
import { paymentDeps } from '../../shared/wiring';
import { STP } from '../../shared/adapters/providers/stp/stp.client';
import { readCallbackJson } from '../../shared/http/provider-callback-body';

/** STP's return cause for a deposit to an account it should not have been sent to: the account does not exist. */
const RETURN_UNKNOWN_ACCOUNT = 1;

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
      // Money kept that did not settle its payment (another amount, or a payment already closed) pages an operator.
      if (!r.duplicate && (r.outcome === 'mismatch' || r.outcome === 'late')) recordProviderAmountMismatch(STP, 1);
      return { body: r.returned ? { mensaje: 'devolver' as const, id: RETURN_UNKNOWN_ACCOUNT } : { mensaje: 'confirmar' as const } };
    } catch (e) {
      if (e instanceof AppError) recordProviderCallbacks(STP, { Accepted: 0, Rejected: 1, Unknown: 0 });
      throw e;
    }
  },
});
