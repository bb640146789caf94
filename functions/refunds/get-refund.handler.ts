/** GET /api/v1/refunds/{refund_id}: one refund (another merchant's id is 404). */
import { getRefund } from '../../shared/application/refunds';
import { refundPath } from '../../shared/domain/refunds/refund.schemas';
import { httpHandler } from '../../shared/http/handler';
import { refundView } from '../../shared/http/views/refund.view';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'getRefund',
  path: refundPath,
  handler: async ({ path, principal }) => ({ body: refundView(await getRefund(paymentDeps(), principal, path.refund_id)) }),
});
