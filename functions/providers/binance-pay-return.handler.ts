/** GET /providers/binance-pay/return/{payment_id}: back from Binance Pay's checkout; the order is read back, then the shopper goes on. */
import { completeLocalReturn } from '../../shared/application/rails';
import { paymentPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { redirect } from '../../shared/http/pages/html';
import { paymentDeps } from '../../shared/wiring';
import { BINANCE_PAY } from '../../shared/adapters/providers/binance-pay/binance-pay.transformers';

export const handler = httpHandler({
  route: 'binancePayReturn',
  path: paymentPath,
  handler: async ({ path }) => redirect(await completeLocalReturn(paymentDeps(), BINANCE_PAY, path.payment_id)),
});
