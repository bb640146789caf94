/**
 * POST /providers/api-pix/{token}/{callback}: the PSP's Pix Automático callbacks (DESIGN.md 9.3), `rec` for
 * recurrences and `cobr` for their charges. A wrong token is 404 with nothing read; each item is read back from the
 * PSP before anything moves; 200 once handled, unknown ids included.
 */
import { AppError } from '../../shared/domain/errors';
import { receiveMandateCallback } from '../../shared/application/mandates';
import { httpHandler } from '../../shared/http/handler';
import { readCallbackJson } from '../../shared/http/provider-callback-body';
import { recurrenceCallbackPath } from '../../shared/domain/providers.schemas';
import { recordProviderCallbacks } from '../../shared/observability/provider-metrics';
import { mandateDeps } from '../../shared/wiring';
import { API_PIX } from '../../shared/adapters/providers/api-pix/api-pix.client';

export const handler = httpHandler({
  route: 'apiPixRecurrenceCallback',
  path: recurrenceCallbackPath,
  handler: async ({ path, event }) => {
    try {
      const r = await receiveMandateCallback(mandateDeps(), path.callback, path.token, () =>
        readCallbackJson(event.body, event.isBase64Encoded),
      );
      recordProviderCallbacks(API_PIX, { Accepted: r.accepted, Rejected: 0, Unknown: r.unknown });
      return { body: { received: r.accepted + r.unknown + r.unavailable } };
    } catch (e) {
      if (e instanceof AppError) recordProviderCallbacks(API_PIX, { Accepted: 0, Rejected: 1, Unknown: 0 });
      throw e;
    }
  },
});
