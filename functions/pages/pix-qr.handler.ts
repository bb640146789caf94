/** GET /checkout/pix-qr/{payment_id}: the PIX QR code as a PNG image (pix_qr_code of the process response). */
import { pixQrImage } from '../../shared/application/checkout';
import { paymentPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { paymentDeps, qrCodes } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'pixQrImage',
  path: paymentPath,
  handler: async ({ path }) => ({
    headers: { 'cache-control': 'private, max-age=300' },
    raw: { contentType: 'image/png', bytes: await pixQrImage({ store: paymentDeps().store, qr: qrCodes }, path.payment_id) },
  }),
});
