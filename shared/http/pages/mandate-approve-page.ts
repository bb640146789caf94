/** Our hosted page where a payer approves a card mandate (DESIGN.md 9.3): the terms, a card form, nothing stored here. */
import type { Mandate } from '../../domain/mandates/mandate';
import { fromMinor } from '../../domain/money';
import { esc, htmlPage } from './html';

const FREQUENCY: Readonly<Record<Mandate['frequency'], string>> = {
  weekly: 'every week',
  monthly: 'every month',
  quarterly: 'every three months',
  semiannual: 'every six months',
  annual: 'every year',
};

const money = (minor: number, currency: string) =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).format(fromMinor(minor, currency as Mandate['currency']));

/** The terms the payer agrees to, in words. */
export function mandateTerms(m: Mandate): string {
  const amount = m.amount_minor !== null ? money(m.amount_minor, m.currency) : `up to ${money(m.max_amount_minor ?? 0, m.currency)}`;
  return `${amount} ${FREQUENCY[m.frequency]} from ${m.start_date}${m.end_date ? ` until ${m.end_date}` : ''}`;
}

/** Fills the browser facts 3-D Secure asks for (screen, colour depth, time zone, language) into the form's hidden fields. */
const BROWSER_SCRIPT =
  "var f=document.getElementById('card');var s=function(n,v){f.elements[n].value=String(v)};" +
  "s('screen_width',screen.width);s('screen_height',screen.height);s('color_depth',screen.colorDepth);" +
  "s('time_zone_offset',new Date().getTimezoneOffset());s('language',navigator.language||'');";

const field = (name: string, label: string, attrs: string) =>
  `<p><label for="${name}">${esc(label)}</label><br><input id="${name}" name="${name}" ${attrs} required></p>`;

export function mandateApprovePage(m: Mandate, merchantName: string, problem?: string) {
  const hidden = ['screen_width', 'screen_height', 'color_depth', 'time_zone_offset', 'language']
    .map((n) => `<input type="hidden" name="${n}">`)
    .join('');
  const form =
    `<form id="card" method="post" action="/mandates/${esc(m.mandate_id)}/approve">` +
    field('holder_name', 'Name on the card', 'autocomplete="cc-name" maxlength="100"') +
    field('number', 'Card number', 'inputmode="numeric" autocomplete="cc-number" pattern="[0-9]{13,19}"') +
    field('expiry_month', 'Expiry month (MM)', 'inputmode="numeric" autocomplete="cc-exp-month" pattern="0[1-9]|1[0-2]"') +
    field('expiry_year', 'Expiry year (YYYY)', 'inputmode="numeric" autocomplete="cc-exp-year" pattern="[0-9]{4}"') +
    field('cvv', 'Security code', 'inputmode="numeric" autocomplete="cc-csc" pattern="[0-9]{3,4}"') +
    `${hidden}<p><button type="submit">Authorise</button></p></form>`;
  const open = m.status === 'pending_approval';
  const body =
    `<main><h1>Authorise ${esc(merchantName)}</h1>` +
    `<p>${esc(m.description)}: <strong>${esc(mandateTerms(m))}</strong>, charged to your card without asking you each time. ` +
    `You can cancel with ${esc(merchantName)}.</p>` +
    (problem ? `<p role="alert">${esc(problem)}</p>` : '') +
    (open ? form : `<p role="status">This authorisation is ${esc(m.status.replace('_', ' '))}.</p>`) +
    '</main>';
  // The form's answer may send the payer on to the merchant's site or the issuer's: off-site form redirects allowed.
  return htmlPage({
    title: `Authorise ${merchantName}`,
    body,
    formsRedirectOffSite: true,
    ...(open ? { script: BROWSER_SCRIPT } : {}),
    status: problem ? 422 : 200,
  });
}

export function mandateMissingPage() {
  return htmlPage({
    title: 'Authorisation not found',
    status: 404,
    body: '<main><h1>Authorisation not found</h1><p>Check the link you were sent.</p></main>',
  });
}
