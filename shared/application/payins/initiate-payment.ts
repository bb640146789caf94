/**
 * Starting a payment, shared by checkout/process and direct payments: method
 * availability, bounds, customer and card checks, the connector call, and the
 * new payment with its event, session link and credit in one transaction.
 */
import { modeOf } from '../../domain/access';
import { AppError, type FieldError } from '../../domain/errors';
import { maskDocument, validateCustomerDocument } from '../../domain/documents';
import { fromMinor } from '../../domain/money';
import { cardBrand, lastFour, validateCard } from '../../domain/payments/card';
import { boundsOf, methodCodeFor, payableForSeconds } from '../../domain/payments/methods';
import type { Payment } from '../../domain/payments/payment';
import type { CardInput } from '../../domain/payments/payment.schemas';
import { recordStarted, type Initiated, type InitiateRequest } from '../payments';
import type { PaymentDeps } from '../ports';
import type { CardOutcome } from '../providers';
import { heldStart, qrPatch } from '../rails';

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
  // A provider holds this payment (the held-strategy table): the intent is committed first, then the provider is called.
  const held = heldStart(connectors, req);
  if (held) return held(deps, req, base);
  switch (req.kind) {
    case 'card': {
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
    // A wallet's approval page, PSE's or Peru's online banking's bank page: the shopper is sent there (the sandbox
    // simulates them all).
    case 'wallet':
    case 'pse':
    case 'payin': {
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
    // A crypto order priced by the provider (the sandbox's simulated one here; live orders are held, heldStart).
    case 'crypto': {
      if (!connectors?.crypto) throw unavailable();
      const o = await connectors.crypto.order({ paymentId: req.paymentId, amountMinor: req.amountMinor, currency: req.currency });
      const shown = qrPatch(base, { kind: 'qr', qrContent: o.qrContent }, o.quote);
      // The sandbox's own checkout page (on our base URL, http locally): where the simulated provider is "paid".
      payment = { ...base, ...shown, artefact: { ...shown.artefact, checkout_url: o.checkoutUrl } };
      break;
    }
    default: {
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

  const recorded = await recordStarted(deps, req, payment);
  return recorded.existing ? recorded : { payment, card, existing: false };
}
