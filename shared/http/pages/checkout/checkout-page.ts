/**
 * The hosted checkout page (checkout_url): server-rendered in the shopper's locale,
 * then driven by the page script (client/), which reads #model. A closed session
 * renders its own page, never the form.
 */
import type { CheckoutPageState } from '../../views/checkout-page.view';
import type { CountryCode } from '../../../domain/geo';
import type { PaymentMethod } from '../../../domain/payments/payment';
import type { HttpResponse } from '../../types';
import { esc, htmlPage } from '../html';
import { CHECKOUT_SCRIPT } from './client-bundle.generated';
import { formatMoney } from './format';
import { METHOD_ICONS } from './icons';
import type { MessageKey } from './i18n/en';
import { CATALOGS, translator, variant, type Locale, type Translate } from './i18n/locale';
import type { PageModel } from './client/model';
import { documentPlaceholder } from './client/masks';

const LANGUAGES = [
  ['pt-BR', 'Português'],
  ['es', 'Español'],
  ['en', 'English'],
] as const;

function summary(s: CheckoutPageState, t: Translate, amount: string) {
  return `<header class="summary">
${s.livemode ? '' : `<p class="badge">${esc(t('page.sandbox'))}</p>`}
<h1 class="merchant">${esc(s.merchantName)}</h1>
<p class="label">${esc(t('page.amount_due'))}</p><p class="amount">${esc(amount)}</p>
${s.description ? `<p>${esc(s.description)}</p>` : ''}${
    s.orderReference ? `<p class="muted small">${esc(t('page.order', { reference: s.orderReference }))}</p>` : ''
  }
${s.livemode ? '' : `<p class="muted small">${esc(t('page.sandbox_note'))}</p>`}
</header>`;
}

function footer(t: Translate, locale: Locale) {
  const links = LANGUAGES.map(
    ([id, name]) => `<li><a href="?locale=${id}" lang="${id}"${locale.catalog === id ? ' aria-current="true"' : ''}>${name}</a></li>`,
  ).join('');
  const nav = `<nav aria-label="${esc(t('page.language'))}"><ul class="langs">${links}</ul></nav>`;
  return `<footer><p>${esc(t('page.secure'))}</p>${nav}</footer>`;
}

const field = (id: string, label: string, attrs: string, value = '', extra = '') =>
  [
    `<div class="field${extra ? ' with-brand' : ''}"><label for="f-${id}">${esc(label)}</label>`,
    `<input id="f-${id}" name="${id}" ${attrs} value="${esc(value)}" aria-describedby="f-${id}-err">`,
    `${extra}<p id="f-${id}-err" class="err" hidden></p></div>`,
  ].join('');

/** The wallets of Brazil's wallet method (svc-mt-9) by name: brands, the same in every language. */
const WALLET_NAMES: Readonly<Record<string, string>> = { mercado_pago: 'Mercado Pago', picpay: 'PicPay', nupay: 'NuPay' };

/**
 * One tile per method: its radio carries the method code the page sends (two codes may share a kind in a country), and
 * a wallet method served by a single named wallet carries that wallet (sent without asking).
 */
function tiles(s: CheckoutPageState, t: Translate, country: CountryCode) {
  return s.methods
    .map((m, i) => {
      const name = t(variant(CATALOGS.en, `method.${m.id}` as MessageKey, country));
      const desc = t(variant(CATALOGS.en, `method.${m.id}.desc` as MessageKey, country));
      const wallet = m.wallets?.length === 1 ? ` data-wallet="${esc(m.wallets[0]!)}"` : '';
      return [
        `<label class="tile">`,
        `<input type="radio" name="payment_method" value="${m.id}" data-method-code="${esc(m.method_code)}"${wallet}${
          i === 0 ? ' checked' : ''
        } aria-describedby="d-${m.id}">`,
        METHOD_ICONS[m.id as PaymentMethod],
        `<span><span class="tile-name">${esc(name)}</span><span class="tile-desc" id="d-${m.id}">${esc(desc)}</span></span>`,
        `<span class="tile-check" aria-hidden="true"></span></label>`,
      ].join('');
    })
    .join('');
}

/** The choice of wallet by name when the wallet method has several (shown while its tile is chosen, as the card fields). */
function walletChoice(s: CheckoutPageState, t: Translate) {
  const wallets = s.methods.find((m) => m.id === 'wallet')?.wallets ?? [];
  if (wallets.length < 2) return '';
  const options = wallets
    .map(
      (w, i) =>
        `<label class="tile"><input type="radio" name="wallet" value="${esc(w)}"${i === 0 ? ' checked' : ''}>` +
        `<span class="tile-name">${esc(WALLET_NAMES[w] ?? w)}</span><span class="tile-check" aria-hidden="true"></span></label>`,
    )
    .join('');
  return `<fieldset id="wallet-fields" hidden><legend>${esc(t('wallet.legend'))}</legend><div class="tiles">${options}</div></fieldset>`;
}

const POSTAL_CODE_ATTRS = 'inputmode="numeric" autocomplete="postal-code" required maxlength="9"';

function form(s: CheckoutPageState, t: Translate, amount: string) {
  const c = s.customer;
  const hasCard = s.methods.some((m) => m.id === 'card');
  const card = hasCard
    ? `<fieldset id="card-fields" hidden><legend>${esc(t('card.legend'))}</legend>
${field(
  'number',
  t('card.number'),
  'inputmode="numeric" autocomplete="cc-number" required maxlength="23"',
  '',
  '<span class="brand-tag" id="card-brand" aria-live="polite"></span>',
)}
<div class="row">${field(
        'expiry',
        t('card.expiry'),
        'inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" required maxlength="5"',
      )}${field('cvc', t('card.cvc'), 'inputmode="numeric" autocomplete="cc-csc" required maxlength="4"')}</div>
${field('holder', t('card.holder'), 'autocomplete="cc-name" required maxlength="100"')}
${
  s.installments.length > 1
    ? `<div class="field"><label for="f-installments">${esc(t('card.installments'))}</label>` +
      '<select id="f-installments" name="installments"></select></div>'
    : ''
}
</fieldset>`
    : '';
  // A live boleto is registered with the payer's address (the sandbox's needs none).
  const address =
    s.livemode && s.methods.some((m) => m.id === 'boleto')
      ? `<fieldset id="address-fields" hidden><legend>${esc(t('address.legend'))}</legend>
<div class="row">${field('postal_code', t('address.postal_code'), POSTAL_CODE_ATTRS)}${field(
          'state',
          t('address.state'),
          'autocomplete="address-level1" required maxlength="2" spellcheck="false"',
        )}</div>
${field('street', t('address.street'), 'autocomplete="address-line1" required maxlength="100"')}
<div class="row">${field('house_number', t('address.number'), 'required maxlength="10"')}${field(
          'city',
          t('address.city'),
          'autocomplete="address-level2" required maxlength="60"',
        )}</div>
</fieldset>`
      : '';
  return `<div id="alert" class="alert" role="alert" hidden></div>
<form id="pay" novalidate>
<fieldset><legend>${esc(t('methods.legend'))}</legend><div class="tiles">${tiles(s, t, s.country)}</div></fieldset>${walletChoice(s, t)}
<fieldset><legend>${esc(t('details.legend'))}</legend>
${field('name', t('field.name'), 'autocomplete="name" required maxlength="200"', c.name)}
${field('email', t('field.email'), 'type="email" autocomplete="email" required maxlength="254"', c.email)}
${field(
  'document',
  t(`field.document.${s.country}` as MessageKey),
  `autocomplete="off" required maxlength="24" spellcheck="false" placeholder="${documentPlaceholder(s.country)}"`,
  c.document,
)}
${field('phone', t('field.phone'), 'type="tel" autocomplete="tel" maxlength="30"', c.phone)}
</fieldset>${card}${address}
<button class="btn" id="submit" type="submit">${esc(t('pay.button', { amount }))}</button>
</form>
<section id="result" class="result" hidden></section>`;
}

const ICON_ATTRS = 'viewBox="0 0 48 48" width="48" height="48" aria-hidden="true" focusable="false" fill="none" stroke-width="3"';
const CIRCLE = '<circle cx="24" cy="24" r="21"/>';
const STATE_ICON = `<svg class="done" ${ICON_ATTRS} stroke="currentColor">${CIRCLE}<path d="M14 25l7 7 13-15"/></svg>`;
const CLOSED_ICON = `<svg ${ICON_ATTRS} stroke="#4f566b">${CIRCLE}<path d="M24 13v13l8 5"/></svg>`;

function closedState(s: CheckoutPageState, t: Translate) {
  const state = s.state as Exclude<CheckoutPageState['state'], 'open'>;
  const href = state === 'completed' ? s.successUrl : s.cancelUrl;
  return [
    `<div class="state">${state === 'completed' ? STATE_ICON : CLOSED_ICON}`,
    `<h2>${esc(t(`state.${state}.title`))}</h2><p class="muted">${esc(t(`state.${state}.text`))}</p>`,
    `<a class="btn" href="${esc(href)}">${esc(t('state.return', { merchant: s.merchantName }))}</a></div>`,
  ].join('');
}

export function renderCheckoutPage(s: CheckoutPageState, locale: Locale): HttpResponse {
  const catalog = CATALOGS[locale.catalog];
  const t = translator(catalog);
  const amount = formatMoney(locale.tag, s.amountMinor, s.currency);
  const open = s.state === 'open';
  let inner: string;
  if (!open) inner = closedState(s, t);
  else if (s.methods.length === 0) inner = `<p class="alert">${esc(t('page.no_methods'))}</p>`;
  else inner = form(s, t, amount);
  const cancel = open
    ? `<p class="cancel no-print"><a href="${esc(s.cancelUrl)}" id="cancel">${esc(t('page.cancel', { merchant: s.merchantName }))}</a></p>`
    : '';
  const main = `<main class="panel" id="main">${inner}${cancel}</main>`;
  const body = `<div class="layout">${summary(s, t, amount)}${main}${footer(t, locale)}</div>`;
  const model: PageModel | undefined =
    open && s.methods.length > 0
      ? {
          sessionId: s.session_id,
          tag: locale.tag,
          country: s.country,
          currency: s.currency,
          amountMinor: s.amountMinor,
          merchantName: s.merchantName,
          sandbox: !s.livemode,
          successUrl: s.successUrl,
          payment: s.payment,
          installments: s.installments,
          messages: catalog,
        }
      : undefined;
  return htmlPage({
    title: t('page.title', { merchant: s.merchantName }),
    lang: locale.tag,
    body,
    ...(model ? { data: model, script: CHECKOUT_SCRIPT } : {}),
  });
}

/** An unknown or malformed session id: a page in the shopper's language, not a JSON error. */
export function renderNotFoundPage(locale: Locale): HttpResponse {
  const t = translator(CATALOGS[locale.catalog]);
  const text = `<h1>${esc(t('state.not_found.title'))}</h1><p class="muted">${esc(t('state.not_found.text'))}</p>`;
  const state = `<div class="state">${CLOSED_ICON}${text}</div>`;
  const body = `<div class="layout"><main class="panel" id="main">${state}</main></div>`;
  return htmlPage({ title: t('state.not_found.title'), lang: locale.tag, body, status: 404 });
}
