/**
 * POST /mandates/{mandate_id}/approve: the payer's card, from our page. A zero-value authorisation with 3-D Secure
 * stores it at the acquirer; the payer goes on to authenticate, or to the merchant's success or cancel URL.
 */
import { approvableCardMandate, approveCardMandate } from '../../shared/application/mandates';
import { approveCardForm, mandatePath } from '../../shared/domain/mandates/mandate.schemas';
import { httpHandler } from '../../shared/http/handler';
import { authenticationRedirect } from '../../shared/http/pages/authentication';
import { redirect } from '../../shared/http/pages/html';
import { mandateApprovePage } from '../../shared/http/pages/mandate-approve-page';
import { mandateDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'mandateApprove',
  path: mandatePath,
  body: approveCardForm,
  handler: async ({ path, body, event }) => {
    const deps = mandateDeps();
    const header = (n: string) => event.headers?.[n] ?? event.headers?.[n.toLowerCase()] ?? '';
    const browser = {
      acceptHeader: header('accept') || 'text/html',
      userAgent: header('user-agent') || 'unknown',
      language: body.language || 'pt-BR',
      colorDepth: body.color_depth ?? 24,
      screenHeight: body.screen_height ?? 800,
      screenWidth: body.screen_width ?? 1280,
      timeZoneOffset: body.time_zone_offset ?? 180,
      javaEnabled: false,
    };
    const { number, holder_name, expiry_month, expiry_year, cvv } = body;
    const step = await approveCardMandate(deps, path.mandate_id, { number, holder_name, expiry_month, expiry_year, cvv }, browser);
    if (step.kind === 'go') return redirect(step.url);
    if (step.kind === 'authenticate') return authenticationRedirect(step.redirect);
    const m = await approvableCardMandate(deps, path.mandate_id);
    return mandateApprovePage(m, (await deps.merchants.get(m.merchant_id))?.name ?? 'the merchant', step.message);
  },
});
