/** GET /mandates/{mandate_id}/approve: the payer's page for a live card mandate (the terms and a card form). */
import { approvableCardMandate } from '../../shared/application/mandates';
import { isAppError } from '../../shared/domain/errors';
import { mandatePagePath } from '../../shared/domain/mandates/mandate.schemas';
import { httpHandler } from '../../shared/http/handler';
import { mandateApprovePage, mandateMissingPage } from '../../shared/http/pages/mandate-approve-page';
import { mandateDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'mandateApprovePage',
  path: mandatePagePath,
  handler: async ({ path }) => {
    const deps = mandateDeps();
    const m = await approvableCardMandate(deps, path.mandate_id).catch((e: unknown) => {
      if (isAppError(e)) return null;
      throw e;
    });
    if (!m) return mandateMissingPage();
    return mandateApprovePage(m, (await deps.merchants.get(m.merchant_id))?.name ?? 'the merchant');
  },
});
