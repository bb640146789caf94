/** GET /api/v1/mandates/{mandate_id}: the mandate, the customer's document masked. */
import { getMandate } from '../../shared/application/mandates';
import { mandatePath } from '../../shared/domain/mandates/mandate.schemas';
import { httpHandler } from '../../shared/http/handler';
import { mandateView } from '../../shared/http/views/mandate.view';
import { mandateDeps, qrCodes } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'getMandate',
  path: mandatePath,
  handler: async ({ path, principal }) => ({
    body: await mandateView(await getMandate(mandateDeps(), principal, path.mandate_id), { qr: qrCodes }),
  }),
});
