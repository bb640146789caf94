/**
 * POST /providers/api-pix/{token}/pix: the PSP's callback (DESIGN.md section 8). A wrong token is 404 with
 * nothing read; each Pix is read back from the PSP before it counts; 200 once handled, unknown txids included.
 */
import { AppError } from '../../shared/domain/errors';
import { receivePixCallback } from '../../shared/application/rails';
import { httpHandler } from '../../shared/http/handler';
import { providerTokenPath } from '../../shared/domain/providers.schemas';
import { recordProviderAmountMismatch, recordProviderCallbacks } from '../../shared/observability/provider-metrics';
import { paymentDeps } from '../../shared/wiring';
import { API_PIX } from '../../shared/adapters/providers/api-pix/api-pix.client';

export const handler = httpHandler({
  route: 'apiPixCallback',
  path: providerTokenPath,
  handler: async ({ path, event }) => {
    const deps = paymentDeps();
    try {
      const r = await receivePixCallback(deps, API_PIX, path.token, () => readJson(event.body, event.isBase64Encoded), deps.clock.now());
      recordProviderCallbacks(API_PIX, { Accepted: r.accepted, Rejected: r.rejected, Unknown: r.unknown });
      if (r.mismatched > 0) recordProviderAmountMismatch(API_PIX, r.mismatched);
      return { body: { received: r.accepted + r.rejected + r.unknown + r.unavailable } };
    } catch (e) {
      if (e instanceof AppError) recordProviderCallbacks(API_PIX, { Accepted: 0, Rejected: 1, Unknown: 0 });
      throw e;
    }
  },
});

function readJson(body: string | undefined, base64: boolean | undefined): unknown {
  if (!body) return undefined;
  try {
    return JSON.parse(base64 ? Buffer.from(body, 'base64').toString('utf8') : body);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'The callback body is not valid JSON.', {
      details: [{ field: 'body', message: 'malformed JSON' }],
    });
  }
}
