/** POST /api/v1/mandates/{mandate_id}/cancel: the recurrence or stored card ended at the provider, then the mandate cancelled. */
import { cancelMandate } from '../../shared/application/mandates';
import type { Mandate } from '../../shared/domain/mandates/mandate';
import { mandatePath } from '../../shared/domain/mandates/mandate.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { mandateView } from '../../shared/http/views/mandate.view';
import { mandateDeps, qrCodes } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'cancelMandate',
  idempotency: idempotent,
  path: mandatePath,
  handler: async ({ path, principal, answering }) => {
    const view = async (m: Mandate) => ({ body: await mandateView(m, { qr: qrCodes }) });
    return view(await cancelMandate(mandateDeps(), principal, path.mandate_id, answering(view)));
  },
});
