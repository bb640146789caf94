/** POST /api/v1/payout/validate-beneficiary: valid or the list of bad fields, HTTP 200 either way (SPEC.md 4.4.6). */
import { validateBeneficiaryFor } from '../../shared/application/payouts';
import { validateBeneficiaryBody } from '../../shared/domain/payouts/payout.schemas';
import { httpHandler } from '../../shared/http/handler';

export const handler = httpHandler({
  route: 'validateBeneficiary',
  body: validateBeneficiaryBody,
  handler: async ({ body, principal }) => ({ body: validateBeneficiaryFor(principal, body.method_code, body.beneficiary) }),
});
