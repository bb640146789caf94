/**
 * The dLocal connector: local pay-ins held by dLocal (a redirect to the bank or wallet, or a ticket paid elsewhere:
 * PagoEfectivo's CIP, Efecty, Servipag), their read-back by our order_id, refunds, the signed notifications; and
 * payouts v3 to bank accounts (Peru, Argentina CBU/CVU, Colombia) created idempotently by our external_id.
 * Every call is made after the application committed its intent; dLocal's texts never leave this module.
 *
 * It implements the application's held local payment port (application/providers/local.ts: a redirect or a
 * ticket); the bank-account payout below is a kind the application does not have yet (like PayoutConnector,
 * without its CLABE order sealing).
 */
import type { CountryCode, CurrencyCode } from '../../../domain/geo';
import {
  type HeldLocalPaymentConnector,
  type LocalPaymentState,
  ProviderRejected,
  ProviderUnavailable,
} from '../../../application/providers';
import { logger } from '../../../observability';
import type { DlocalConfig } from '../providers.config';
import { DLOCAL, dlocalClient, type DlocalAnswer, type DlocalClient } from './dlocal.client';
import { orderSchema, paymentSchema, payoutSchema, refundSchema, type CreatePaymentRequest, type DlocalPayment } from './dlocal.schemas';
import {
  ALPHA2,
  dlocalAmount,
  externalIdOf,
  liveMethodOf,
  LIVE_PAYOUT_METHODS,
  orderIdOf,
  outcomeOfStatus,
  payoutStateOf,
  refundReferenceOf,
  refusalCodeOf,
  type DlocalPayoutState,
} from './dlocal.transformers';
import { dlocalNotifications, type DlocalNotifications } from './dlocal.notifications';
import { payoutRequestOf, type BankPayoutRequest } from './dlocal.payouts';

export type { BankPayoutRequest } from './dlocal.payouts';

export type { LocalPaymentArtefact, LocalPaymentRequest, LocalPaymentState } from '../../../application/providers';

/** The held local payments port, and what only dLocal's own tools use: whether it serves a code, refunds. */
export interface DlocalPayments extends HeldLocalPaymentConnector {
  /** The method codes and countries dLocal serves live (LIVE_METHODS). */
  serves(methodCode: string, country: CountryCode): boolean;
  refund(req: {
    refundId: string;
    providerPaymentId: string;
    amountMinor: number;
    currency: CurrencyCode;
    notificationUrl: string;
  }): Promise<{ readonly providerRefundId: string; readonly kind: 'pending' | 'succeeded' | 'failed' }>;
}

export interface BankPayoutConnector {
  readonly provider: { readonly name: string; reference(payoutId: string): string };
  serves(methodCode: string): boolean;
  /**
   * Creates the payout at dLocal (intent committed first). With `retry` (an earlier send's answer was lost) the
   * payout is first looked up by our external_id, so a second payout is never made; a create dLocal refuses as a
   * used external_id is read back too. ProviderUnavailable: outcome unknown; ProviderRejected: none was made.
   */
  create(req: BankPayoutRequest, opts?: { retry?: boolean }): Promise<Exclude<DlocalPayoutState, { kind: 'not_found' }>>;
  get(payoutId: string): Promise<DlocalPayoutState>;
}

export interface DlocalConnectors {
  readonly payments: DlocalPayments;
  readonly payouts: BankPayoutConnector | null;
  readonly notifications: DlocalNotifications;
  readonly client: DlocalClient;
}

function rejected(op: string, a: Extract<DlocalAnswer<unknown>, { refused: unknown }>): ProviderRejected {
  const code = refusalCodeOf(a.refused.code);
  logger.warn('dLocal refused a call', { provider: DLOCAL, operation: op, status: a.refused.status, dlocal_code: a.refused.code, code });
  return new ProviderRejected(DLOCAL, op, code, a.refused.status);
}

function stateOf(p: DlocalPayment): Exclude<LocalPaymentState, { kind: 'not_found' }> {
  const outcome = outcomeOfStatus(p.status, p.status_code, p);
  if (outcome.kind !== 'pending') return { providerPaymentId: p.id, outcome };
  if (p.redirect_url) return { providerPaymentId: p.id, outcome, artefact: { kind: 'redirect', redirectUrl: p.redirect_url } };
  const t = p.ticket;
  if (t && (t.number || t.barcode || t.reference)) {
    const ticket: Record<string, string> = {};
    for (const k of ['number', 'barcode', 'reference', 'expiration_date', 'image_url', 'provider_name', 'company_name'] as const) {
      const v = t[k];
      if (typeof v === 'string' && v) ticket[k] = v;
    }
    return { providerPaymentId: p.id, outcome, artefact: { kind: 'ticket', ticket } };
  }
  return { providerPaymentId: p.id, outcome };
}

export function dlocalConnectors(cfg: DlocalConfig, client: DlocalClient = dlocalClient(cfg)): DlocalConnectors {
  async function getByProviderId(id: string): Promise<LocalPaymentState> {
    const a = await client.payins({
      op: 'payment',
      method: 'GET',
      path: `/payments/${encodeURIComponent(id)}`,
      schema: paymentSchema,
      retry: true,
    });
    if ('refused' in a) {
      if (a.refused.status === 404 || a.refused.code === 4000) return { kind: 'not_found' };
      throw new ProviderUnavailable(DLOCAL, 'payment', `dLocal refused the read-back (${a.refused.status})`);
    }
    return stateOf(a.ok);
  }

  async function get(paymentId: string): Promise<LocalPaymentState> {
    const orderId = orderIdOf(paymentId);
    const a = await client.payins({ op: 'order', method: 'GET', path: `/orders/${orderId}`, schema: orderSchema, retry: true });
    if ('refused' in a) {
      if (a.refused.status === 404 || a.refused.code === 4000) return { kind: 'not_found' };
      throw new ProviderUnavailable(DLOCAL, 'order', `dLocal refused the read-back (${a.refused.status})`);
    }
    if (a.ok.order_id !== orderId) throw new ProviderUnavailable(DLOCAL, 'order', 'dLocal answered another order');
    // The order names the payment; the payment itself carries the artefact (redirect_url, ticket).
    return getByProviderId(a.ok.payment_id);
  }

  const payments: DlocalPayments = {
    provider: { name: DLOCAL, reference: orderIdOf },
    serves: (methodCode, country) => liveMethodOf(methodCode, country) !== null,
    flowOf: (methodCode, country) => liveMethodOf(methodCode, country)?.artefact ?? null,
    async create(req) {
      const m = liveMethodOf(req.methodCode, req.country);
      if (!m || m.currency !== req.currency) throw new ProviderRejected(DLOCAL, 'payments', 'method_not_available', 0);
      const body: CreatePaymentRequest = {
        amount: dlocalAmount(req.amountMinor, req.currency),
        currency: req.currency,
        country: ALPHA2[req.country],
        payment_method_id: m.paymentMethodId,
        payment_method_flow: m.flow,
        payer: { name: req.payer.name, email: req.payer.email, document: req.payer.document.replace(/[^0-9A-Za-z]/g, '') },
        order_id: orderIdOf(req.paymentId),
        ...(req.description ? { description: req.description.slice(0, 100) } : {}),
        notification_url: req.notificationUrl,
        ...(m.flow === 'REDIRECT' ? { callback_url: req.returnUrl } : {}),
      };
      const a = await client.payins({ op: 'payments', method: 'POST', path: '/payments', schema: paymentSchema, body });
      if ('refused' in a) {
        if (a.refused.code === 5009) {
          // An earlier create got through (its answer was lost): the payment dLocal holds is this one.
          const back = await get(req.paymentId);
          if ('outcome' in back) return back;
          throw new ProviderUnavailable(DLOCAL, 'payments', 'dLocal reports the order as duplicated but has no payment for it');
        }
        throw rejected('payments', a);
      }
      if (a.ok.order_id !== undefined && a.ok.order_id !== body.order_id)
        throw new ProviderUnavailable(DLOCAL, 'payments', 'dLocal answered another order');
      const state = stateOf(a.ok);
      if (state.outcome.kind === 'pending' && !state.artefact)
        throw new ProviderUnavailable(DLOCAL, 'payments', `no ${m.artefact === 'ticket' ? 'ticket' : 'redirect_url'} in the answer`);
      return state;
    },
    get,
    getByProviderId,
    async refund(req) {
      const a = await client.payins({
        op: 'refunds',
        method: 'POST',
        path: '/refunds',
        schema: refundSchema,
        body: {
          payment_id: req.providerPaymentId,
          amount: dlocalAmount(req.amountMinor, req.currency),
          currency: req.currency,
          notification_url: req.notificationUrl,
          order_refund_id: refundReferenceOf(req.refundId),
        },
      });
      if ('refused' in a) throw rejected('refunds', a);
      const kind = a.ok.status === 'SUCCESS' ? 'succeeded' : a.ok.status === 'PENDING' ? 'pending' : 'failed';
      return { providerRefundId: a.ok.id, kind };
    },
  };

  async function getPayout(payoutId: string): Promise<DlocalPayoutState> {
    const externalId = externalIdOf(payoutId);
    const a = await client.payouts({
      op: 'payout',
      method: 'GET',
      path: `/payouts/v3?external_id=${externalId}`,
      schema: payoutSchema,
      retry: true,
    });
    if ('refused' in a) {
      if (a.refused.status === 404 || a.refused.code === 509 || a.refused.code === 4000) return { kind: 'not_found' };
      throw new ProviderUnavailable(DLOCAL, 'payout', `dLocal refused the payout query (${a.refused.status})`);
    }
    if (a.ok.external_id !== externalId) throw new ProviderUnavailable(DLOCAL, 'payout', 'dLocal answered another payout');
    return payoutStateOf(a.ok);
  }

  async function createPayout(req: BankPayoutRequest, opts: { retry?: boolean } = {}) {
    const p = payoutRequestOf(req);
    if ('invalid' in p) throw new ProviderRejected(DLOCAL, 'payouts', p.invalid, 0);
    if (opts.retry) {
      // An earlier send may have got through: dLocal's payout for our external_id is this payout.
      const existing = await getPayout(req.payoutId);
      if (existing.kind !== 'not_found') return existing;
    }
    const a = await client.payouts({ op: 'payouts', method: 'POST', path: '/payouts/v3', schema: payoutSchema, body: p.body });
    if ('refused' in a) {
      if (a.refused.code === 511) {
        // "External ID already used": the payout exists; read it back rather than make another.
        const back = await getPayout(req.payoutId);
        if (back.kind !== 'not_found') return back;
        throw new ProviderUnavailable(DLOCAL, 'payouts', 'dLocal reports the external_id as used but has no payout for it');
      }
      throw rejected('payouts', a);
    }
    if (a.ok.external_id !== p.body.external_id) throw new ProviderUnavailable(DLOCAL, 'payouts', 'dLocal answered another payout');
    const state = payoutStateOf(a.ok);
    if (state.kind === 'not_found') throw new ProviderUnavailable(DLOCAL, 'payouts', 'no payout in the answer');
    return state;
  }

  const payouts: BankPayoutConnector | null = cfg.payouts
    ? {
        provider: { name: DLOCAL, reference: externalIdOf },
        serves: (methodCode) => methodCode in LIVE_PAYOUT_METHODS,
        get: getPayout,
        create: createPayout,
      }
    : null;

  return { payments, payouts, notifications: dlocalNotifications(cfg), client };
}
