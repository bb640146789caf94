/** POST /api/v1/checkout/process: the hosted page pays a session; authorised by the session id. */
import type { ShopperBrowser } from '../../shared/application/providers';
import { processCheckoutPayment } from '../../shared/application/checkout';
import { processBody, type BrowserInfoInput } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import type { HttpEvent } from '../../shared/http/types';
import { processPaymentView } from '../../shared/http/views/payment.view';
import { paymentDeps } from '../../shared/wiring';

/** The page's browser fields with the request's own user agent and Accept header (3-D Secure 2 needs both). */
function shopperBrowser(info: BrowserInfoInput | undefined, event: HttpEvent): ShopperBrowser | undefined {
  if (!info) return undefined;
  const header = (name: string, fallback: string) => (event.headers?.[name] ?? fallback).slice(0, 2048);
  return {
    acceptHeader: header('accept', '*/*'),
    userAgent: header('user-agent', 'unknown'),
    language: info.language,
    colorDepth: info.color_depth,
    screenHeight: info.screen_height,
    screenWidth: info.screen_width,
    timeZoneOffset: info.time_zone_offset,
    javaEnabled: info.java_enabled,
  };
}

export const handler = httpHandler({
  route: 'processCheckoutPayment',
  body: processBody,
  handler: async ({ body, newId, event }) =>
    processPaymentView(
      paymentDeps(),
      await processCheckoutPayment(paymentDeps(), body, newId('pi_'), shopperBrowser(body.browser_info, event)),
    ),
});
