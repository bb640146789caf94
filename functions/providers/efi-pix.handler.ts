/**
 * POST /providers/efi/{token}/pix: Efí's callback of the payer key's webhook (Efí appends /pix to the registered
 * URL) telling the outcome of PIX sends (DESIGN.md section 8) and the Pix received on the key's charges (Efí as a
 * PIX pay-in PSP, 9.2). A wrong token is 404 with nothing read; each send of ours it names is read back from Efí by
 * idEnvio, each received Pix by its txid, and only what Efí holds applied. A send Efí's read-back does not show yet
 * is a 502: Efí sends it again (a received Pix applied the first time is then found settled).
 */
import { AppError } from '../../shared/domain/errors';
import { callbackCounts, receivePayoutStateCallback } from '../../shared/application/payouts';
import { httpHandler } from '../../shared/http/handler';
import { providerTokenPath } from '../../shared/domain/providers.schemas';
import { recordProviderAmountMismatch, recordProviderCallbacks } from '../../shared/observability/provider-metrics';
import { receivePixCallback } from '../../shared/application/rails';
import { paymentDeps, payoutDeps } from '../../shared/wiring';
import { EFI } from '../../shared/adapters/providers/efi/efi.client';
import { readCallbackJson } from '../../shared/http/provider-callback-body';
import { logger } from '../../shared/observability';

export const handler = httpHandler({
  route: 'efiPixCallback',
  path: providerTokenPath,
  handler: async ({ path, event }) => {
    const body = () => readCallbackJson(event.body, event.isBase64Encoded);
    try {
      const r = await receivePayoutStateCallback(payoutDeps(), path.token, body, 'pixPayouts');
      if (r.outcomes.includes('mismatch')) logger.warn('Efí send callback names another send than ours: ignored', { provider: EFI });
      // The same webhook tells the Pix received on the key's charges (Efí as a PIX pay-in PSP, DESIGN.md 9.2).
      const deps = paymentDeps();
      const payIns = await receivePixCallback(deps, EFI, path.token, body, deps.clock.now());
      if (payIns.mismatched > 0) recordProviderAmountMismatch(EFI, payIns.mismatched);
      const sends = callbackCounts(r.outcomes);
      recordProviderCallbacks(EFI, {
        Accepted: sends.Accepted + payIns.accepted,
        Rejected: sends.Rejected + payIns.rejected,
        Unknown: sends.Unknown + payIns.unknown,
      });
      return { body: { received: r.outcomes.length + payIns.accepted + payIns.rejected + payIns.unknown + payIns.unavailable } };
    } catch (e) {
      if (e instanceof AppError && e.code !== 'PROVIDER_UNAVAILABLE')
        recordProviderCallbacks(EFI, { Accepted: 0, Rejected: 1, Unknown: 0 });
      throw e;
    }
  },
});
