/**
 * Request inputs for use-case tests, parsed through the same zod schemas the HTTP layer uses (so defaults
 * such as expires_in_minutes and metadata apply as in production), with the sandbox's test cards and
 * beneficiary documents (DESIGN.md section 6).
 */
import { createSessionBody, directPaymentBody, processBody } from '../../../shared/domain/payments/payment.schemas';
import { createPayoutBody } from '../../../shared/domain/payouts/payout.schemas';
import { customer, SESSION_BODY } from '../sample-data';

export { CPF, customer } from '../sample-data';
export const CURP = 'GODE561231HDFRRN00';
export const mxCustomer = { name: 'Juan Perez', email: 'juan@example.com', document: CURP };

/** DESIGN.md section 6 test cards. */
export const CARDS = {
  approve: '4242424242424242',
  threeDs: '4000000000003220',
  decline: '4000000000000002',
  insufficientFunds: '4000000000009995',
} as const;
export const card = (number: string) => ({ number, holder_name: 'ANA SILVA', cvv: '123', expiry_month: '12', expiry_year: '2039' });

/** Sandbox payout beneficiary documents: the CPF decides the outcome. */
export const PAYOUT_DOCS = {
  complete: '52998224725',
  fail: '00000000272',
  completeThenRefund: '00000000353',
  hold: '00000000434',
} as const;

export const sessionInput = (over: Record<string, unknown> = {}) => createSessionBody.parse({ ...SESSION_BODY, ...over });

export const processInput = (sessionId: string, method: string, over: Record<string, unknown> = {}) =>
  processBody.parse({ session_id: sessionId, payment_method: method, customer, ...over });

export const directInput = (over: Record<string, unknown> = {}) =>
  directPaymentBody.parse({ payment_method: 'pix', amount: 25, currency: 'BRL', country: 'BRA', customer, ...over });

export const pixBeneficiary = (document: string = PAYOUT_DOCS.complete) => ({
  name: 'Ana Silva',
  document,
  document_type: 'CPF' as const,
  instant_transfer_key: 'ana@example.com',
  instant_transfer_type: 'email' as const,
});

export const speiBeneficiary = () => ({
  name: 'Juan Perez',
  document: CURP,
  document_type: 'CURP' as const,
  instant_transfer_key: '646180157000000004',
  instant_transfer_type: 'clabe' as const,
});

export const payoutInput = (over: Record<string, unknown> = {}) =>
  createPayoutBody.parse({ method_code: 'svc-mt-5', amount: 50, currency: 'BRL', beneficiary: pixBeneficiary(), ...over });
