/** POST /api/v1/payout/validate-beneficiary: valid or the list of bad fields, HTTP 200 either way (SPEC.md 4.4.6). */
import { validateBeneficiaryFor } from '../../shared/application/payouts';
import { validateBeneficiaryBody } from '../../shared/domain/payouts/payout.schemas';
import { httpHandler } from '../../shared/http/handler';
import { beneficiaryCheckView } from '../../shared/http/views/payout.view';

export const handler = httpHandler({
  route: 'validateBeneficiary',
  body: validateBeneficiaryBody,
  handler: async ({ body, principal }) => ({
    body: beneficiaryCheckView(validateBeneficiaryFor(principal, body.method_code, body.beneficiary)),
  }),
});
