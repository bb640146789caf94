/** POST /api/v1/mandates: a mandate pending the payer's approval (DESIGN.md 9.3). */
import { createMandate } from '../../shared/application/mandates';
import type { Mandate } from '../../shared/domain/mandates/mandate';
import { createMandateBody } from '../../shared/domain/mandates/mandate.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { mandateView } from '../../shared/http/views/mandate.view';
import { mandateDeps, qrCodes } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'createMandate',
  idempotency: idempotent,
  body: createMandateBody,
  handler: async ({ body, principal, newId, answering }) => {
    const view = async (m: Mandate) => ({ body: await mandateView(m, { qr: qrCodes }) });
    return view(await createMandate(mandateDeps(), principal, body, newId('md_'), answering(view)));
  },
});
