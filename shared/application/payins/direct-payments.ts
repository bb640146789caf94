/** Direct payments (SPEC.md 2.4): a merchant's server starts a payment without a checkout session. */
import { AppError, type ErrorCode } from '../../domain/errors';
import { toMinor } from '../../domain/money';
import type { Payment } from '../../domain/payments/payment';
import type { DirectPaymentInput } from '../../domain/payments/payment.schemas';
import type { Principal } from '../access';
import { requireSafeNotificationUrl } from '../payments';
import type { Answering, PaymentDeps } from '../ports';
import { initiatePayment } from './initiate-payment';

export async function createDirectPayment(
  deps: PaymentDeps,
  principal: Principal,
  input: DirectPaymentInput,
  paymentId: string,
  answering?: Answering<Payment>,
): Promise<Payment> {
  if (!principal.merchant.countries.includes(input.country)) {
    throw new AppError('COUNTRY_NOT_SUPPORTED', `${input.country} is not enabled for this merchant.`);
  }
  requireSafeNotificationUrl(deps, input.notification_url, principal.livemode);
  const { payment } = await initiatePayment(deps, {
    paymentId,
    merchant: principal.merchant,
    livemode: principal.livemode,
    kind: input.payment_method,
    amountMinor: toMinor(input.amount, input.currency) as number,
    currency: input.currency,
    country: input.country,
    customer: input.customer,
    card: input.card,
    installments: input.card?.installments,
    threeDsStatus: 'pending_3ds',
    description: input.description,
    notificationUrl: input.notification_url,
    returnUrl: input.return_url,
    referenceId: input.reference_id,
    metadata: input.metadata,
    answering,
  });
  if (payment.status === 'failed') {
    throw new AppError((payment.failure_code ?? 'CARD_DECLINED') as ErrorCode, payment.failure_message ?? undefined, {
      paymentId: payment.payment_id,
    });
  }
  return payment;
}
