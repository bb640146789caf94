/**
 * Live SPEI pay-ins (DESIGN.md section 8): each payment gets its own CLABE under the platform's account,
 * claimed for that payment before it is shown (so a deposit names exactly one payment); the provider's
 * deposit callback is recorded before it is answered, then settles the payment when the CLABE and the amount
 * match. Each deposit is first read back from the provider (a callback body alone is never trusted). A
 * different amount is recorded and alarmed, never settled; a deposit to a CLABE that is not a live payment's,
 * or to a payment already paid, expired or cancelled, is recorded and sent back (the provider's return answer);
 * a redelivery changes nothing.
 */
import { AppError } from '../../domain/errors';
import { fromMinor } from '../../domain/money';
import type { Payment } from '../../domain/payments/payment';
import { ProviderUnavailable, type DepositConfirmation, type IncomingDeposit, type SpeiDepositConnector } from '../providers';
import { type DepositOutcome, type PaymentDeps, WriteConflict } from '../ports';
import { transition } from '../payments';

/** A CLABE for a live SPEI payment, claimed for it (a keyed retry finds its own claim). */
export async function liveSpeiArtefact(
  deps: Pick<PaymentDeps, 'speiDeposits'>,
  connector: SpeiDepositConnector,
  paymentId: string,
  now: string,
): Promise<Record<string, string>> {
  const store = deps.speiDeposits;
  if (!store) throw new AppError('METHOD_NOT_AVAILABLE', 'No live provider is configured for spei.');
  for (let attempt = 0; attempt < 8; attempt++) {
    const clabe = connector.clabeFor(paymentId, attempt);
    if ((await store.claimClabe(clabe, paymentId, now)) || (await store.paymentOfClabe(clabe)) === paymentId)
      return { clabe, bank_name: 'STP', reference: clabe.slice(10, 17) };
  }
  throw new Error('No free pay-in CLABE after 8 attempts');
}

export interface DepositAnswer {
  readonly outcome: DepositOutcome;
  readonly duplicate: boolean;
  /**
   * Whether the provider is told to send the money back: a CLABE that is no live payment's (`returned`), or a
   * payment that is already paid, expired or cancelled (`late`): money is never kept without a payment to settle.
   */
  readonly returned: boolean;
}

const isOurs = (p: Payment | null, clabe: string): p is Payment =>
  Boolean(p && p.livemode && p.payment_method === 'spei' && p.artefact?.clabe === clabe);

/**
 * The deposit callback: 404 for a wrong token (nothing read or written), 400 for a body that is not the
 * provider's shape; otherwise recorded, then applied. Settling is a conditional transition, so a redelivery
 * of a recorded deposit whose settlement did not finish completes it, and one that did changes nothing.
 */
export async function receiveSpeiDeposit(deps: PaymentDeps, token: string, readBody: () => unknown): Promise<DepositAnswer> {
  const connector = (await deps.connectors.forMode(true))?.speiDeposits;
  const store = deps.speiDeposits;
  if (!connector || !store || !connector.tokenMatches(token)) throw new AppError('NOT_FOUND');
  const d = connector.parseDeposit(readBody());
  if (!d) throw new AppError('VALIDATION_ERROR', "The callback body is not the provider's deposit shape.");
  // Never on the body alone: the provider's own record of the deposit must show it (tracking key, account,
  // amount, settled). Anything less is not recorded and answered 502, so the provider sends it again: a real
  // deposit its query does not show yet is retried until it does, and a forged one never moves money.
  await confirmDeposit(connector, d);
  const paymentId = await store.paymentOfClabe(d.clabe);
  const payment = paymentId ? await deps.store.getPayment(paymentId) : null;
  const ours = isOurs(payment, d.clabe) ? payment : null;
  const outcome: DepositOutcome = !ours
    ? 'returned'
    : ours.status !== 'pending' && ours.status !== 'processing'
      ? 'late'
      : ours.amount_minor === d.amountMinor
        ? 'settled'
        : 'mismatch';
  const { record, duplicate } = await store.record({
    provider: connector.provider.name,
    deposit_id: d.depositId,
    clabe: d.clabe,
    amount_minor: d.amountMinor,
    tracking_key: d.trackingKey,
    payment_id: ours?.payment_id ?? null,
    outcome,
    paid_at: d.paidAt,
    received_at: deps.clock.now().toISOString(),
  });
  // A redelivery: what was recorded decides (a settlement that did not finish is finished now).
  const decided = record.outcome;
  if (ours && decided === 'settled' && (ours.status === 'pending' || ours.status === 'processing')) {
    try {
      await transition(deps, ours, 'success', { paid_at: record.paid_at, expires_at: null });
    } catch (e) {
      if (!(e instanceof AppError && e.code === 'PAYMENT_STATE_CONFLICT')) throw e;
      // Another writer moved the payment (a racing redelivery settled it, or it closed): what it is now stands. Still
      // open, the settlement did not commit: never answered as received, so the provider sends the deposit again
      // and its recorded outcome finishes the settlement then.
      const current = await deps.store.getPayment(ours.payment_id);
      if (current && (current.status === 'pending' || current.status === 'processing'))
        throw new AppError('PROVIDER_UNAVAILABLE', 'The deposit is recorded but its payment is not settled yet; send it again.');
    }
  }
  if (ours && decided === 'mismatch' && !duplicate) await recordPaidAmount(deps, ours, d.amountMinor);
  return { outcome: decided, duplicate, returned: decided === 'returned' || decided === 'late' };
}

async function confirmDeposit(connector: SpeiDepositConnector, d: IncomingDeposit) {
  let confirmation: DepositConfirmation;
  try {
    confirmation = await connector.confirm(d);
  } catch (e) {
    if (e instanceof ProviderUnavailable)
      throw new AppError('PROVIDER_UNAVAILABLE', 'The deposit could not be read back from the provider; send it again.');
    throw e;
  }
  if (confirmation !== 'confirmed')
    throw new AppError('PROVIDER_UNAVAILABLE', 'The provider does not show this deposit as received; send it again.');
}

/** A paid amount that differs from the payment's: kept on the payment for the alarm and an operator; nothing settled. */
async function recordPaidAmount(deps: PaymentDeps, payment: Payment, paidMinor: number) {
  const [paid, due] = [fromMinor(paidMinor, payment.currency), fromMinor(payment.amount_minor, payment.currency)];
  await deps.store
    .touchPayment({
      payment,
      patch: { provider_mismatch_minor: paidMinor, failure_message: `Paid ${paid} instead of ${due} ${payment.currency}: not settled.` },
      nextCheckAt: null,
      now: deps.clock.now().toISOString(),
    })
    .catch((e: unknown) => {
      if (!(e instanceof WriteConflict)) throw e;
    });
}
