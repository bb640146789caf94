/**
 * Starting a payment, shared by checkout/process and direct payments: method
 * availability, bounds, customer and card checks, the connector call, and the
 * new payment with its event, session link and credit in one transaction.
 */
import type { BillingAddress } from '../domain/payments/payment.schemas';
import type { ShopperBrowser } from './connectors';
import { AppError, type FieldError } from '../domain/errors';
import { paymentEvent } from '../domain/events';
import { validateCustomerDocument, maskDocument } from '../domain/documents';
import type { CountryCode, CurrencyCode } from '../domain/geo';
import { fromMinor } from '../domain/money';
import { validateCard, lastFour, cardBrand } from '../domain/payments/card';
import { boundsOf, methodCodeFor, payableForSeconds } from '../domain/payments/methods';
import { PAYMENT_EVENT, type Payment, type PaymentMethod, type PaymentStatus } from '../domain/payments/payment';
import type { CardInput, CustomerInput } from '../domain/payments/payment.schemas';
import type { CheckoutSession } from '../domain/payments/session';
import type { Merchant } from '../domain/merchant';
import type { CardOutcome } from './connectors';
import type { PaymentDeps } from './payment-deps';
import { modeOf } from '../domain/access';
import { commitAndPublish, WriteConflict } from './ports';
import { initiateHeldPix } from './held-pix';
import { liveSpeiArtefact } from './spei-deposits';
import { initiateHeldCard } from './held-card';
import { initiateHeldVoucher } from './held-voucher';

export interface InitiateRequest {
  readonly paymentId: string;
  readonly merchant: Merchant;
  readonly livemode: boolean;
  readonly kind: PaymentMethod;
  readonly amountMinor: number;
  readonly currency: CurrencyCode;
  readonly country: CountryCode;
  readonly customer: CustomerInput;
  readonly card?: CardInput;
  readonly installments?: number;
  readonly session?: CheckoutSession;
  /** Status a card needing 3DS starts in: pending_3ds (direct) or processing (checkout, SPEC.md 3.1). */
  readonly threeDsStatus: Extract<PaymentStatus, 'pending_3ds' | 'processing'>;
  readonly description?: string | null;
  readonly notificationUrl?: string | null;
  readonly returnUrl?: string | null;
  readonly referenceId?: string | null;
  readonly metadata?: Payment['metadata'];
  /** The hosted page's shopper browser, for a live card's 3-D Secure 2 (never stored). */
  readonly browser?: ShopperBrowser;
  /** The payer's address (a live boleto is registered with it). */
  readonly billingAddress?: BillingAddress;
}

export interface Initiated {
  readonly payment: Payment;
  readonly card?: CardOutcome;
  /** True when the id already existed (a keyed retry after a crash): nothing new was written. */
  readonly existing: boolean;
}

function checkInputs(req: InitiateRequest, now: Date) {
  const errors: FieldError[] = [];
  const doc = validateCustomerDocument(req.country, req.customer.document);
  if (!doc.valid) errors.push({ field: 'customer.document', message: doc.message ?? 'is not a valid document' });
  if (req.kind === 'card' && req.card) errors.push(...validateCard(req.card, now));
  if (errors.length)
    throw new AppError('VALIDATION_ERROR', `Invalid request parameters: ${errors.map((e) => e.field).join(', ')}.`, { details: errors });
}

export async function initiatePayment(deps: PaymentDeps, req: InitiateRequest): Promise<Initiated> {
  const now = deps.clock.now();
  const code = methodCodeFor(req.kind, req.country);
  if (!code) throw new AppError('METHOD_NOT_AVAILABLE', `${req.kind} is not available in ${req.country}.`);
  if (!req.merchant.methods.includes(code) || !req.merchant.countries.includes(req.country)) {
    throw new AppError('METHOD_NOT_AVAILABLE', `${req.kind} (${code}) is not enabled for this merchant in ${req.country}.`);
  }
  const bounds = boundsOf(code, req.country);
  const amount = fromMinor(req.amountMinor, req.currency);
  if (bounds && (amount < bounds.min || amount > bounds.max)) {
    throw new AppError('AMOUNT_LIMIT_EXCEEDED', `${req.kind} accepts ${bounds.min} to ${bounds.max} ${req.currency}; got ${amount}.`);
  }
  checkInputs(req, now);
  const connectors = await deps.connectors.forMode(req.livemode);
  const unavailable = () => new AppError('METHOD_NOT_AVAILABLE', `No ${modeOf(req.livemode)} provider is configured for ${req.kind}.`);

  const at = now.toISOString();
  const sessionEnd = req.session ? Date.parse(req.session.expires_at) : Infinity;
  const expiresAt = new Date(Math.min(now.getTime() + payableForSeconds(req.kind) * 1000, sessionEnd)).toISOString();
  const base: Payment = {
    payment_id: req.paymentId,
    merchant_id: req.merchant.merchant_id,
    livemode: req.livemode,
    checkout_session_id: req.session?.session_id ?? null,
    payment_method: req.kind,
    method_code: code,
    amount_minor: req.amountMinor,
    currency: req.currency,
    country: req.country,
    status: 'pending',
    description: req.description ?? null,
    customer: {
      name: req.customer.name,
      email: req.customer.email,
      document_masked: maskDocument(req.customer.document),
      phone: req.customer.phone ?? null,
    },
    card: null,
    installments: req.kind === 'card' ? (req.installments ?? 1) : null,
    authorization_code: null,
    failure_code: null,
    failure_message: null,
    artefact: null,
    redirect_url: null,
    return_url: null,
    notification_url: req.notificationUrl ?? null,
    reference_id: req.referenceId ?? null,
    metadata: req.metadata ?? {},
    expires_at: expiresAt,
    paid_at: null,
    created_at: at,
    updated_at: at,
  };

  let payment: Payment;
  let card: CardOutcome | undefined;
  const pageUrl = (page: string) => `${deps.baseUrl()}/sandbox/${page}/${req.paymentId}`;
  switch (req.kind) {
    case 'card': {
      // A provider holds live cards: the intent is committed first, then the provider is called.
      if (connectors?.heldCard) return initiateHeldCard(deps, req, base, connectors.heldCard);
      if (!connectors?.card) throw unavailable();
      const c = req.card as CardInput;
      card = await connectors.card.authorize({
        paymentId: req.paymentId,
        amountMinor: req.amountMinor,
        currency: req.currency,
        card: c,
        installments: req.installments ?? 1,
      });
      const summary = { brand: cardBrand(c.number) ?? 'unknown', last_four: lastFour(c.number) };
      if (card.kind === 'approved') {
        payment = { ...base, status: 'success', card: summary, authorization_code: card.authorizationCode, paid_at: at, expires_at: null };
      } else if (card.kind === 'requires_3ds') {
        payment = {
          ...base,
          status: req.threeDsStatus,
          card: summary,
          redirect_url: pageUrl('3ds'),
          return_url: req.returnUrl ?? `${pageUrl('3ds')}/done`,
        };
      } else {
        payment = { ...base, status: 'failed', card: summary, failure_code: card.code, failure_message: card.message, expires_at: null };
      }
      break;
    }
    case 'pix': {
      if (!connectors?.pix) throw unavailable();
      // A provider holds live charges: the intent is committed first, then the provider is called.
      if (connectors.pix.provider) return initiateHeldPix(deps, req, base, connectors.pix);
      const charge = await connectors.pix.createCharge({
        paymentId: req.paymentId,
        amountMinor: req.amountMinor,
        merchantName: req.merchant.name,
        createdAt: at,
        expiresAt,
      });
      payment = { ...base, artefact: { pix_code: charge.pixCode, txid: charge.txid } };
      break;
    }
    case 'wallet': {
      if (!connectors?.wallet) throw unavailable();
      const w = await connectors.wallet.start({
        paymentId: req.paymentId,
        amountMinor: req.amountMinor,
        currency: req.currency,
        country: req.country,
      });
      payment = { ...base, redirect_url: w.redirectUrl };
      break;
    }
    default: {
      // Live SPEI: the payment's own CLABE under the platform's STP account, claimed for it.
      if (req.livemode && req.kind === 'spei' && connectors?.speiDeposits) {
        payment = { ...base, artefact: await liveSpeiArtefact(deps, connectors.speiDeposits, req.paymentId, at) };
        break;
      }
      // A provider holds this voucher: the intent is committed first, then the provider issues it.
      if (connectors?.heldVoucher?.serves(req.kind, req.country)) return initiateHeldVoucher(deps, req, base, connectors.heldVoucher);
      if (!connectors?.voucher) throw unavailable();
      const artefact = await connectors.voucher.issue({
        kind: req.kind,
        paymentId: req.paymentId,
        amountMinor: req.amountMinor,
        currency: req.currency,
        country: req.country,
        dueAt: expiresAt,
      });
      payment = { ...base, artefact };
    }
  }

  const type = PAYMENT_EVENT[payment.status];
  const events = type ? [paymentEvent(type, payment, req.session ?? null, deps.ids.newId('evt_'), at)] : [];
  const credit =
    payment.status === 'success'
      ? { amountMinor: payment.amount_minor, currency: payment.currency, entryId: deps.ids.newId('le_') }
      : undefined;
  const existing = await recordNewPayment(deps, req, {
    payment,
    session: req.session ? { sessionId: req.session.session_id, complete: payment.status === 'success', latestOnly: false } : undefined,
    events,
    credit,
    now: at,
  });
  if (existing) return { payment: existing, existing: true };
  return { payment, card, existing: false };
}

/**
 * Records a new payment (with its session link, events and credit) and publishes its events. A keyed retry
 * after a crash finds the id taken: the stored payment is returned instead (null when it was recorded now).
 * A session that stopped accepting payments answers SESSION_EXPIRED or SESSION_NOT_PENDING.
 */
export async function recordNewPayment(
  deps: PaymentDeps,
  req: Pick<InitiateRequest, 'paymentId' | 'merchant' | 'session'>,
  op: Parameters<PaymentDeps['store']['recordNewPayment']>[0],
): Promise<Payment | null> {
  try {
    await commitAndPublish(deps.publisher, deps.store.recordNewPayment(op));
    return null;
  } catch (e) {
    if (e instanceof WriteConflict && e.entity === 'payment') {
      const existing = await deps.store.getPayment(req.paymentId);
      if (existing && existing.merchant_id === req.merchant.merchant_id) return existing;
    }
    if (e instanceof WriteConflict && e.entity === 'session') {
      const s = await deps.store.getSession(req.session?.session_id ?? '');
      if (s && Date.parse(s.expires_at) <= deps.clock.now().getTime()) throw new AppError('SESSION_EXPIRED');
      throw new AppError('SESSION_NOT_PENDING', 'The session is no longer accepting payments.');
    }
    throw e;
  }
}
