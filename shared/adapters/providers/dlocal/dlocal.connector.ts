/**
 * The dLocal connector: local pay-ins held by dLocal (a redirect to the bank or wallet, Brazil's Pix via Open Finance
 * and its wallets among them; a ticket paid elsewhere: PagoEfectivo's CIP, Efecty, Servipag; or a QR our page shows:
 * Colombia's Bre-B), their read-back by our order_id, refunds (dlocal.refunds.ts), the signed notifications; and
 * payouts v3 to bank accounts (Peru, Argentina CBU/CVU, Colombia) created idempotently by our external_id.
 * Every call is made after the application committed its intent; dLocal's texts never leave this module.
 *
 * It implements the application's held local payment port (application/providers/local.ts: a redirect, a ticket or
 * a QR; the Brazilian wallets the account serves, `dlocal.wallets`, through walletsOf); the bank-account payout
 * below is a kind the application does not have yet (like PayoutConnector, without its CLABE order sealing).
 */
import type { CountryCode } from '../../../domain/geo';
import {
  type HeldLocalPaymentConnector,
  type LocalPaymentArtefact,
  type LocalPaymentState,
  type LocalRefundConnector,
  ProviderRejected,
  ProviderUnavailable,
} from '../../../application/providers';
import { logger } from '../../../observability';
import type { DlocalConfig } from '../providers.config';
import { DLOCAL, dlocalClient, type DlocalAnswer, type DlocalClient } from './dlocal.client';
import {
  orderSchema,
  paymentMethodListSchema,
  paymentSchema,
  payoutSchema,
  type CreatePaymentRequest,
  type DlocalMethodListing,
  type DlocalPayment,
} from './dlocal.schemas';
import { dlocalRefunds } from './dlocal.refunds';
import {
  ALPHA2,
  dlocalAmount,
  externalIdOf,
  liveMethodOf,
  LIVE_METHODS,
  LIVE_PAYOUT_METHODS,
  methodIdFor,
  orderIdOf,
  outcomeOfStatus,
  payoutStateOf,
  refusalCodeOf,
  servedWallets,
  type DlocalPayoutState,
} from './dlocal.transformers';
import { dlocalNotifications, type DlocalNotifications } from './dlocal.notifications';
import { payoutRequestOf, type BankPayoutRequest } from './dlocal.payouts';
import { dlocalPixPayIns, type DlocalPixRail } from './dlocal.pix-payins';

export type { BankPayoutRequest } from './dlocal.payouts';

export type { LocalPaymentArtefact, LocalPaymentRequest, LocalPaymentState } from '../../../application/providers';

/** The held local payments port, and what only dLocal's own tools use: whether it serves a code. */
export interface DlocalPayments extends HeldLocalPaymentConnector {
  /** The method codes and countries dLocal serves live (LIVE_METHODS). */
  serves(methodCode: string, country: CountryCode): boolean;
  /** The account's methods in a country as dLocal lists them (`providers check` compares LIVE_METHODS's ids). */
  listMethods(country: CountryCode): Promise<DlocalMethodListing[]>;
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
  readonly refunds: LocalRefundConnector;
  readonly payouts: BankPayoutConnector | null;
  readonly notifications: DlocalNotifications;
  /** PIX pay-ins (Brazil's Pix, PQ, DIRECT): a PIX rail beside the API Pix PSPs (dlocal.pix-payins.ts). */
  readonly pix: DlocalPixRail;
  readonly client: DlocalClient;
}

function rejected(op: string, a: Extract<DlocalAnswer<unknown>, { refused: unknown }>): ProviderRejected {
  const code = refusalCodeOf(a.refused.code);
  logger.warn('dLocal refused a call', { provider: DLOCAL, operation: op, status: a.refused.status, dlocal_code: a.refused.code, code });
  return new ProviderRejected(DLOCAL, op, code, a.refused.status);
}

/** The payment_method_ids whose DIRECT answer is a QR to show (Bre-B). */
const QR_METHOD_IDS: ReadonlySet<string> = new Set(
  Object.values(LIVE_METHODS).flatMap((m) => (m.artefact === 'qr' ? [m.paymentMethodId] : [])),
);

/** An EMVCo merchant-presented QR payload (Bre-B's, like Pix's): it opens with the payload format indicator 00 02 01. */
const EMV_QR = /^000201\S{10,}$/;

/**
 * The QR of a DIRECT answer: the ticket's `qr_code`, or, for a QR method, its `number`, when it is the EMVCo payload
 * our page renders (not an image, not a cash ticket's number), with the ticket's expiration_date; null otherwise.
 */
function qrOf(p: DlocalPayment): Extract<LocalPaymentArtefact, { kind: 'qr' }> | null {
  const t = p.ticket;
  if (!t) return null;
  const candidates = [t.qr_code, p.payment_method_id && QR_METHOD_IDS.has(p.payment_method_id) ? t.number : undefined];
  const content = candidates.find((c): c is string => typeof c === 'string' && EMV_QR.test(c));
  if (!content) return null;
  return { kind: 'qr', qrContent: content, ...(t.expiration_date ? { expiresAt: t.expiration_date } : {}) };
}

function stateOf(p: DlocalPayment): Exclude<LocalPaymentState, { kind: 'not_found' }> {
  const outcome = outcomeOfStatus(p.status, p.status_code, p);
  if (outcome.kind !== 'pending') return { providerPaymentId: p.id, outcome };
  if (p.redirect_url) return { providerPaymentId: p.id, outcome, artefact: { kind: 'redirect', redirectUrl: p.redirect_url } };
  const qr = qrOf(p);
  if (qr) return { providerPaymentId: p.id, outcome, artefact: qr };
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
    walletsOf: (methodCode, country) => servedWallets(liveMethodOf(methodCode, country), cfg.wallets),
    async listMethods(country) {
      const path = `/payments-methods?country=${ALPHA2[country]}`;
      const a = await client.payins({ op: 'methods', method: 'GET', path, schema: paymentMethodListSchema, retry: true });
      if ('refused' in a) throw new ProviderUnavailable(DLOCAL, 'methods', `dLocal refused the method list (${a.refused.status})`);
      return a.ok;
    },
    async create(req) {
      const m = liveMethodOf(req.methodCode, req.country);
      if (!m || m.currency !== req.currency) throw new ProviderRejected(DLOCAL, 'payments', 'method_not_available', 0);
      // A wallet the account does not serve (or one named for a method that has no choice) is refused before any call.
      const paymentMethodId = methodIdFor(m, servedWallets(m, cfg.wallets), req.wallet);
      if (!paymentMethodId) throw new ProviderRejected(DLOCAL, 'payments', 'method_not_available', 0);
      const body: CreatePaymentRequest = {
        amount: dlocalAmount(req.amountMinor, req.currency),
        currency: req.currency,
        country: ALPHA2[req.country],
        payment_method_id: paymentMethodId,
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
      if (state.outcome.kind === 'pending' && state.artefact?.kind !== m.artefact)
        throw new ProviderUnavailable(
          DLOCAL,
          'payments',
          `no ${{ ticket: 'ticket', qr: 'QR', redirect: 'redirect_url' }[m.artefact]} in the answer`,
        );
      return state;
    },
    get,
    getByProviderId,
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
      if (a.refused.status === 404 || a.refused.code === 509 || a.refused.code === 5009 || a.refused.code === 4000)
        return { kind: 'not_found' };
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
      if (a.refused.code === 511 || a.refused.code === 5011) {
        // "External ID already used" (payouts v3's 5011; 511 on the older table): the payout exists; read it back
        // rather than fail it (failing it would credit the merchant back while dLocal pays: money paid twice).
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

  return {
    payments,
    refunds: dlocalRefunds(client),
    payouts,
    notifications: dlocalNotifications(cfg),
    pix: dlocalPixPayIns(client),
    client,
  };
}
