/** POST /api/v1/sandbox/mandates/{mandate_id}/simulate: the payer approves, rejects, lets expire or cancels a test mandate (test keys). */
import { simulateSandboxMandate } from '../../shared/application/mandates';
import { AppError } from '../../shared/domain/errors';
import type { Mandate } from '../../shared/domain/mandates/mandate';
import { mandatePath, simulateMandateBody } from '../../shared/domain/mandates/mandate.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { mandateView } from '../../shared/http/views/mandate.view';
import { mandateDeps, qrCodes } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'simulateMandate',
  idempotency: idempotent,
  path: mandatePath,
  body: simulateMandateBody,
  handler: async ({ path, body, principal, answering }) => {
    if (principal.livemode) throw new AppError('FORBIDDEN', 'The sandbox simulator only accepts sk_test_ keys.');
    const view = async (m: Mandate) => ({ body: await mandateView(m, { qr: qrCodes }) });
    return view(await simulateSandboxMandate(mandateDeps(), principal, path.mandate_id, body.outcome, answering(view)));
  },
});
