/// <reference lib="dom" />
/** The result views of the page: what to do with each method's artefact, paid, and expired. */
import { formatTypeableLine, typeableLineToBarcode } from '../../../../domain/payments/boleto';
import { itf25Svg } from '../../../../domain/payments/itf';
import type { MessageKey } from '../i18n/en';
import type { Translate } from '../i18n/locale';
import { variant } from '../i18n/locale';
import { formatDay, formatInstant } from '../format';
import { copyRow, h } from './dom';
import type { PageModel, PagePayment } from './model';

export interface ViewContext {
  readonly model: PageModel;
  readonly t: Translate;
  readonly amount: string;
}

const copy = (c: ViewContext, id: string, label: string, value: string) =>
  copyRow(id, label, value, { copy: c.t('result.copy'), copied: c.t('result.copied'), announce: c.t('result.copied_announce', { label }) });

const facts = (rows: [string, string][]) => h('dl', { class: 'facts' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));

const title = (text: string) => h('h2', { id: 'result-title', tabindex: '-1' }, text);

/** "Waiting for your payment" (live) and the time left (not live: it changes every second). */
function waiting(c: ViewContext, p: PagePayment, countdown: boolean): HTMLElement[] {
  const out = [
    h('p', { class: 'status', role: 'status' }, h('span', { class: 'status-dot', 'aria-hidden': 'true' }), c.t('result.waiting')),
  ];
  if (p.expires_at && countdown) {
    const [before, after] = c.t('result.expires_in', { time: '\u0000' }).split('\u0000');
    out.push(h('p', { class: 'muted' }, before ?? '', h('span', { class: 'countdown', id: 'countdown' }), after ?? ''));
  } else if (p.expires_at) {
    out.push(h('p', { class: 'muted' }, c.t('result.pay_by', { date: formatInstant(c.model.tag, p.expires_at) })));
  }
  return out;
}

/** A ticket's amount and, when the provider gives one (a live ticket), its due date, in the page's language. */
const ticketFacts = (c: ViewContext, a: Readonly<Record<string, string>>) =>
  facts([
    [c.t('result.amount'), c.amount],
    ...(a.due_date ? [[c.t('result.boleto.due'), formatDay(c.model.tag, a.due_date)] as [string, string]] : []),
  ]);

/** A live ticket's barcode number, when the provider gives one. */
const ticketBarcode = (c: ViewContext, a: Readonly<Record<string, string>>) =>
  a.barcode ? [copy(c, 'ticket-barcode', c.t('result.ticket.barcode'), a.barcode)] : [];

const qrImage = (p: PagePayment, alt: string) =>
  p.pix_qr_code ? h('img', { class: 'qr', src: p.pix_qr_code, width: '220', height: '220', alt }) : null;

/** A quoted crypto amount (up to 8 decimals) as the locale writes numbers, with its currency: "20,10 USDT". */
const cryptoAmount = (tag: string, amount: string, currency: string) =>
  `${new Intl.NumberFormat(tag, { minimumFractionDigits: 2, maximumFractionDigits: 8 }).format(Number(amount))} ${currency}`;

/**
 * A payment paid by scanning a QR: a crypto order (its USDT quote beside the session's amount, and the provider's
 * checkout page: Binance Pay live, the sandbox's own page in test mode), or a Bre-B transfer (the code to copy too).
 */
function qrView(c: ViewContext, p: PagePayment): HTMLElement[] {
  const a = p.artefact;
  const { t } = c;
  if (p.payment_method === 'crypto') {
    const quoted = a.crypto_amount ? cryptoAmount(c.model.tag, a.crypto_amount, a.crypto_currency ?? 'USDT') : null;
    return [
      title(t('result.crypto.title')),
      h('p', { class: 'steps' }, t('result.crypto.steps')),
      facts([
        [t('result.amount'), c.amount],
        ...(quoted ? [[t('result.crypto.amount', { currency: a.crypto_currency ?? 'USDT' }), quoted] as [string, string]] : []),
      ]),
      qrImage(p, t('result.crypto.qr_alt', { amount: quoted ?? c.amount })),
      a.checkout_url
        ? h(
            'a',
            { class: 'btn', id: 'crypto-checkout', href: a.checkout_url, target: '_blank', rel: 'noopener' },
            t('result.crypto.open'),
            h('span', { class: 'sr-only' }, ` ${t('result.new_tab')}`),
          )
        : null,
    ].filter(Boolean) as HTMLElement[];
  }
  const breb = p.payment_method === 'bank_transfer';
  return [
    title(t(breb ? 'result.breb.title' : 'result.qr.title')),
    h('p', { class: 'steps' }, t(breb ? 'result.breb.steps' : 'result.qr.steps')),
    facts([[t('result.amount'), c.amount]]),
    qrImage(p, t('result.qr.qr_alt', { amount: c.amount })),
    copy(c, 'qr-code', t('result.qr.code'), a.qr_code ?? ''),
  ].filter(Boolean) as HTMLElement[];
}

function artefactView(c: ViewContext, p: PagePayment): HTMLElement[] {
  const a = p.artefact;
  const { t } = c;
  const country = c.model.country;
  // A payment finished on the provider's page (a bank, PSE, online banking, a live wallet), shown again after a reload:
  // continue there.
  if (p.redirect_url && p.payment_method !== 'card' && p.payment_method !== 'wallet' && Object.keys(a).length === 0)
    return [title(t('pay.redirect_bank')), h('a', { class: 'btn', href: p.redirect_url }, t('pay.button', { amount: c.amount }))];
  // Scanned, whatever the kind (a live Bre-B transfer, a crypto order); the sandbox's Bre-B gives account details instead.
  if (a.qr_code || p.payment_method === 'crypto') return qrView(c, p);
  switch (p.payment_method) {
    case 'pix':
      return [
        title(t('result.pix.title')),
        h('p', { class: 'steps' }, t('result.pix.steps')),
        qrImage(p, t('result.pix.qr_alt', { amount: c.amount })),
        copy(c, 'pix-code', t('result.pix.code'), a.pix_code ?? ''),
      ].filter(Boolean) as HTMLElement[];
    case 'boleto': {
      const line = a.boleto_line ?? '';
      const barcode = a.boleto_barcode ?? typeableLineToBarcode(line);
      const bars = h('div', { class: 'barcode', id: 'boleto-barcode' });
      bars.innerHTML = itf25Svg(barcode, { label: t('result.boleto.barcode') }); // digits and an escaped label only
      return [
        title(t('result.boleto.title')),
        h('p', { class: 'steps' }, t('result.boleto.steps')),
        facts([
          [t('result.amount'), c.amount],
          ...(a.due_date ? [[t('result.boleto.due'), formatDay(c.model.tag, a.due_date)] as [string, string]] : []),
        ]),
        copy(c, 'boleto-line', t('result.boleto.line'), formatTypeableLine(line)),
        bars,
        h('button', { type: 'button', class: 'btn btn-ghost no-print', 'data-action': 'print' }, t('result.boleto.print')),
      ];
    }
    case 'spei':
      return [
        title(t('result.spei.title')),
        h('p', { class: 'steps' }, t('result.spei.steps')),
        facts([[t('result.amount'), c.amount], ...(a.bank_name ? [[t('result.spei.bank'), a.bank_name] as [string, string]] : [])]),
        copy(c, 'clabe', t('result.spei.clabe'), a.clabe ?? ''),
        copy(c, 'reference', t('result.reference'), a.reference ?? ''),
      ];
    case 'cash':
      return [
        title(t('result.cash.title')),
        h('p', { class: 'steps' }, t(variant(c.model.messages, 'result.cash.steps', country))),
        ticketFacts(c, a),
        copy(c, 'voucher', t('result.cash.reference'), a.voucher_reference ?? ''),
        ...ticketBarcode(c, a),
        h('button', { type: 'button', class: 'btn btn-ghost no-print', 'data-action': 'print' }, t('result.print')),
      ];
    case 'cip':
      return [
        title(t('result.cip.title')),
        h('p', { class: 'steps' }, t('result.cip.steps')),
        ticketFacts(c, a),
        copy(c, 'cip', t('result.cip.code'), a.cip_code ?? ''),
        ...ticketBarcode(c, a),
      ];
    case 'bank_transfer':
      return [
        title(t('result.transfer.title')),
        h('p', { class: 'steps' }, t('result.transfer.steps')),
        facts([
          [t('result.amount'), c.amount],
          [t('result.spei.bank'), a.bank_name ?? ''],
          [t('result.transfer.holder'), a.account_holder ?? ''],
        ]),
        copy(c, 'account', t('result.transfer.account'), a.account_number ?? ''),
        copy(c, 'reference', t('result.reference'), a.reference ?? ''),
      ];
    default: // card 3DS or wallet, shown again after a reload: continue where the shopper left off
      return [
        title(t(p.payment_method === 'wallet' ? 'pay.redirect_wallet' : 'pay.redirect_3ds')),
        p.redirect_url
          ? h(
              'a',
              { class: 'btn', href: p.redirect_url },
              t(p.payment_method === 'wallet' ? 'pay.button.wallet' : 'pay.button', { amount: c.amount }),
            )
          : null,
      ].filter(Boolean) as HTMLElement[];
  }
}

const another = (c: ViewContext) =>
  h('button', { type: 'button', class: 'link no-print', 'data-action': 'change' }, c.t('result.change_method'));

/** Paid by scanning a QR (PIX, Bre-B, a crypto order): a short-lived code, so the page counts its time down. */
const scanned = (p: PagePayment) => p.payment_method === 'pix' || p.payment_method === 'crypto' || Boolean(p.artefact.qr_code);

/** An open payment: its artefact, the live status and the ways out. */
export function paymentView(c: ViewContext, p: PagePayment): HTMLElement[] {
  const voucher = p.payment_method !== 'card' && p.payment_method !== 'wallet';
  // PSE and online banking, like a wallet, are paid on the page their redirect opens (the sandbox's own page there):
  // no "customer paid" link.
  const sandbox =
    c.model.sandbox && voucher && p.payment_method !== 'pse' && p.payment_method !== 'payin'
      ? h('p', { class: 'small no-print' }, h('a', { href: `/sandbox/pay/${p.payment_id}` }, c.t('result.sandbox_pay')))
      : null;
  return [...artefactView(c, p), ...(voucher ? waiting(c, p, scanned(p)) : []), ...(sandbox ? [sandbox] : []), h('p', {}, another(c))];
}

export function paidView(c: ViewContext, next: string): HTMLElement[] {
  return [
    title(c.t('result.paid.title')),
    h('p', { role: 'status' }, c.t('result.paid.text', { merchant: c.model.merchantName })),
    h('a', { class: 'btn', href: next }, c.t('result.paid.continue', { merchant: c.model.merchantName })),
  ];
}

export function expiredView(c: ViewContext, p: PagePayment): HTMLElement[] {
  const pix = p.payment_method === 'pix';
  const qr = !pix && scanned(p);
  return [
    title(c.t(pix ? 'result.pix.expired' : qr ? 'result.qr.expired' : 'result.expired')),
    h(
      'button',
      { type: 'button', class: 'btn', 'data-action': 'retry' },
      c.t(pix ? 'result.pix.retry' : qr ? 'result.qr.retry' : 'result.retry'),
    ),
    h('p', {}, another(c)),
  ];
}

export const declineKey = (code: string | null | undefined): MessageKey =>
  (code && ['card_declined', 'insufficient_funds', 'expired_card', 'incorrect_cvc', 'authentication_failed'].includes(code)
    ? `decline.${code}`
    : 'decline.generic') as MessageKey;
