/** POST /api/v1/payments/{payment_id}/refunds: refund a successful payment, in full or in part. */
import { createRefund } from '../../shared/application/refunds';
import type { Refund } from '../../shared/domain/refunds/refund';
import { createRefundBody, paymentRefundsPath } from '../../shared/domain/refunds/refund.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { refundView } from '../../shared/http/views/refund.view';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'createRefund',
  idempotency: idempotent,
  path: paymentRefundsPath,
  body: createRefundBody,
  handler: async ({ path, body, principal, newId, answering }) => {
    const view = (r: Refund) => ({ body: refundView(r) });
    return view(await createRefund(paymentDeps(), principal, path.payment_id, body, newId('re_'), answering(view)));
  },
});
