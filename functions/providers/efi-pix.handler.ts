/**
 * POST /providers/efi/{token}/pix: Efí's callback of the payer key's webhook (Efí appends /pix to the registered
 * URL) telling the outcome of PIX sends (DESIGN.md section 8). A wrong token is 404 with nothing read; each send of
 * ours it names is read back from Efí by idEnvio and what Efí holds applied (received Pix in the same callback are
 * the API Pix callback's, ignored here). A send Efí's read-back does not show yet is a 502: Efí sends it again.
 */
import { AppError } from '../../shared/domain/errors';
import { callbackCounts, receivePayoutStateCallback } from '../../shared/application/payouts';
import { httpHandler } from '../../shared/http/handler';
import { providerTokenPath } from '../../shared/domain/providers.schemas';
import { recordProviderCallbacks } from '../../shared/observability/provider-metrics';
import { payoutDeps } from '../../shared/wiring';
import { EFI } from '../../shared/adapters/providers/efi/efi.client';
import { readCallbackJson } from '../../shared/http/provider-callback-body';
import { logger } from '../../shared/observability';

export const handler = httpHandler({
  route: 'efiPixCallback',
  path: providerTokenPath,
  handler: async ({ path, event }) => {
    try {
      const r = await receivePayoutStateCallback(
        payoutDeps(),
        path.token,
        () => readCallbackJson(event.body, event.isBase64Encoded),
        'pixPayouts',
      );
      if (r.outcomes.includes('mismatch')) logger.warn('Efí send callback names another send than ours: ignored', { provider: EFI });
      recordProviderCallbacks(EFI, callbackCounts(r.outcomes));
      return { body: { received: r.outcomes.length } };
    } catch (e) {
      if (e instanceof AppError && e.code !== 'PROVIDER_UNAVAILABLE')
        recordProviderCallbacks(EFI, { Accepted: 0, Rejected: 1, Unknown: 0 });
      throw e;
    }
  },
});
