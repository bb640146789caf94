/**
 * How a live method is held, chosen from a table keyed by kind (DESIGN.md section 8): starting a payment a
 * provider holds, what a live merchant is offered, and the reconciliation job all read these rows, first
 * match wins. A new kind (a redirect, a ticket) is a new row here with its strategy file beside it, not a
 * branch in the payment use cases. The order matters: a deposit to the payment's CLABE is asked before a
 * held voucher (both may take SPEI), and PIX reads back whatever no other row holds.
 */
import type { CountryCode } from '../../domain/geo';
import { methodCodeFor, paidOnRedirect } from '../../domain/payments/methods';
import type { PaymentMethod } from '../../domain/payments/payment';
import { recordStarted } from '../payments';
import { cardRailOf, localRailOf, localRails, pixRailOf, type Connectors, type LocalFlow, type VoucherKind } from '../providers';
import { cardCandidates, initiateHeldCard } from './card-attempts';
import { reconcileHeldCard } from './held-card';
import { initiateHeldPix } from './held-pix';
import { heldLocally, initiateHeldLocal, reconcileHeldLocal } from './held-local';
import type { HeldCheck, HeldKind, HeldStart, HeldStrategy } from './held-types';
import { initiateHeldVoucher, reconcileHeldVoucher } from './held-voucher';
import { reconcileOne } from './pix-reconcile';
import { reconcileMandateCharge } from '../mandates';
import { liveSpeiArtefact } from './spei-deposits';

/** Kinds whose artefact the shopper pays elsewhere (the voucher connectors' kinds): not a card, PIX, crypto or a redirect. */
const isVoucherKind = (kind: PaymentMethod): kind is VoucherKind =>
  kind !== 'card' && kind !== 'pix' && kind !== 'crypto' && !paidOnRedirect(kind);

/**
 * A local payment a provider holds with this flow (held-local.ts): its offer, its start, its read-back. The local
 * rails (the aggregator's, the crypto provider's) are asked in order; the first serving the kind's code takes it.
 */
function localRow(flow: LocalFlow): HeldStrategy {
  const railFor = (c: Connectors, kind: PaymentMethod, country: CountryCode) => {
    const code = methodCodeFor(kind, country);
    return code ? (localRails(c).find((r) => r.payments.flowOf(code, country) === flow)?.payments ?? null) : null;
  };
  return {
    readsBack: true,
    serves: (c, kind, country) => railFor(c, kind, country) !== null,
    start: (c, req) => {
      const local = req.livemode ? railFor(c, req.kind, req.country) : null;
      return local ? (deps, r, base) => initiateHeldLocal(deps, r, base, local) : null;
    },
    check: (c, id, p) => {
      const local = localRailOf(c, p?.provider?.name)?.payments;
      if (!local || !heldLocally(local, p, flow)) return null;
      return (deps, now, opts) => reconcileHeldLocal(deps, local, id, now, opts);
    },
  };
}

export const holders: Readonly<Record<HeldKind, HeldStrategy>> = {
  // A charge under a Pix Automático mandate (a cobr): made by the mandate's charge route, never started here; read
  // back from its PSP by its own reference until it settles or fails. First: a PIX row must never read it as a cob.
  recurring: {
    readsBack: true,
    serves: () => false,
    start: () => null,
    check: (c, _id, p) => {
      const pix = c.pixMandates?.mandates;
      if (!p?.mandate_id || p.payment_method !== 'pix' || !pix || p.provider?.name !== pix.provider.name) return null;
      return async (deps, now, opts) => {
        const outcome = await reconcileMandateCharge(deps, pix, p, now, opts);
        return outcome === 'failed' ? 'failed' : outcome === 'settled' ? 'settled' : outcome === 'closed' ? 'closed' : 'waiting';
      };
    },
  },
  // A card routed between its providers (card-attempts.ts); unanswered (processing) or awaiting 3-D Secure, it is
  // read back where its provider can be, and cancelled by reference past the provider's window.
  card: {
    readsBack: false,
    serves: (c, kind, country, routing) => kind === 'card' && cardCandidates(c, country, routing).length > 0,
    start: (c, req) => {
      if (req.kind !== 'card' || cardCandidates(c, req.country, req.merchant.routing).length === 0) return null;
      return (deps, r, base) => initiateHeldCard(deps, r, base, c);
    },
    check: (c, _id, p) => {
      const rail = cardRailOf(c, p?.provider?.name);
      if (!rail || !p || p.status === 'pending') return null;
      // An unanswered voucher its provider issues (a boleto, OXXO) is cancelled by reference the same way.
      const voucher = p.payment_method !== 'pix' && c.heldVoucher?.provider.name === rail.cards.provider.name;
      if (p.payment_method !== 'card' && !voucher) return null;
      return (deps, now, opts) => reconcileHeldCard(deps, rail, p, now, opts);
    },
  },
  // Live SPEI: the payment's own CLABE under the platform's account, claimed for it; its deposit callback settles it.
  deposit: {
    readsBack: false,
    serves: (c, kind) => kind === 'spei' && Boolean(c.speiDeposits),
    start: (c, req) => {
      const deposits = c.speiDeposits;
      if (!req.livemode || req.kind !== 'spei' || !deposits) return null;
      return async (deps, r, base) =>
        recordStarted(deps, r, { ...base, artefact: await liveSpeiArtefact(deps, deposits, r.paymentId, base.created_at) });
    },
    check: () => null,
  },
  // An issued voucher waits for the provider's notification; past its expiry and a grace it expires.
  voucher: {
    readsBack: false,
    serves: (c, kind, country) => isVoucherKind(kind) && Boolean(c.heldVoucher?.serves(kind, country)),
    start: (c, req) => {
      const voucher = c.heldVoucher;
      if (!isVoucherKind(req.kind) || !voucher?.serves(req.kind, req.country)) return null;
      return (deps, r, base) => initiateHeldVoucher(deps, r, base, voucher);
    },
    check: (c, _id, p) => {
      const voucher = c.heldVoucher;
      if (!voucher || !p || p.payment_method === 'pix' || p.provider?.name !== voucher.provider.name || p.status !== 'pending') return null;
      return (deps, now) => reconcileHeldVoucher(deps, p, now);
    },
  },
  // A local payment finished on the provider's page (PSE, Nequi, Yape, Webpay): read back, its notification prompts one.
  redirect: localRow('redirect'),
  // A local payment paid elsewhere with its ticket (CIP, Efecty, Servipag): read back until paid or expired.
  ticket: localRow('ticket'),
  // A QR our page shows (Bre-B; a crypto order, also payable on the provider's page): read back until paid or expired.
  qr: localRow('qr'),
  // A charge read back from the PSP that holds it (missed callbacks, timeouts, expiry): the job's default.
  pix: {
    readsBack: true,
    serves: (c, kind) => kind === 'pix' && Boolean(c.pixRails?.length),
    start: (c, req) => (req.kind === 'pix' && c.pixRails?.length ? (deps, r, base) => initiateHeldPix(deps, r, base, c) : null),
    check: (c, id, p) => {
      // A payment read is held by its own PSP; an id whose payment could not be read goes to the first (it answers closed).
      const pix = (p ? pixRailOf(c, p.provider?.name) : c.pixRails?.[0])?.charges;
      if (!pix) return null;
      return (deps, now, opts) =>
        reconcileOne(deps, pix, id, now, { lostIntentSeconds: opts.lostIntentSeconds, checkIntervalSeconds: opts.checkIntervalSeconds });
    },
  },
};

const rows = Object.values(holders);

/** The start of a payment a configured provider holds, or null: the sandbox (or non-held) connector takes it. */
export function heldStart(c: Connectors | null, req: Parameters<HeldStrategy['start']>[1]): HeldStart | null {
  if (!c) return null;
  for (const row of rows) {
    const start = row.start(c, req);
    if (start) return start;
  }
  return null;
}

/** The reconciliation step of a stored payment, or null when no configured provider holds it. */
export function heldCheck(c: Connectors | null, paymentId: string, payment: Parameters<HeldStrategy['check']>[2]): HeldCheck | null {
  if (!c) return null;
  for (const row of rows) {
    const check = row.check(c, paymentId, payment);
    if (check) return check;
  }
  return null;
}

/** Whether a configured live provider holds this kind in this country (for this merchant's routing overrides). */
export const heldServes = (
  c: Connectors,
  kind: PaymentMethod,
  country: Parameters<HeldStrategy['serves']>[2],
  routing?: Parameters<HeldStrategy['serves']>[3],
) => rows.some((row) => row.serves(c, kind, country, routing));

/** The read-back of a stored payment by a row whose provider can be asked for it, or null. */
export function heldReadBack(c: Connectors | null, paymentId: string, payment: Parameters<HeldStrategy['check']>[2]): HeldCheck | null {
  if (!c) return null;
  for (const row of rows) {
    const check = row.check(c, paymentId, payment);
    if (check) return row.readsBack ? check : null;
  }
  return null;
}
