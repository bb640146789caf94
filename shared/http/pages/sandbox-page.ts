/**
 * Sandbox completion pages: the 3-D Secure challenge, the wallet (or PSE or online-banking bank) approval and "customer
 * paid" for vouchers and PIX, the crypto order's checkout page (the sandbox's Binance Pay), and a test mandate's approval.
 */
import type { Mandate } from '../../domain/mandates/mandate';
import { fromMinor } from '../../domain/money';
import type { Payment } from '../../domain/payments/payment';
import { isOpenPaymentStatus } from '../../domain/payments/payment';
import type { HttpResponse } from '../types';
import { esc, htmlPage } from './html';

export type SandboxPageKind = '3ds' | 'wallet' | 'pay';

const TITLES: Readonly<Record<SandboxPageKind, [string, string, string]>> = {
  '3ds': ['3-D Secure challenge', 'Authenticate', 'Fail authentication'],
  wallet: ['Approve in your wallet', 'Approve payment', 'Reject payment'],
  pay: ['Simulate the customer paying', 'Customer paid', 'Payment failed'],
};

/** A crypto order's "customer paid" page stands for the provider's checkout page (live: Binance Pay's). */
const CRYPTO_TITLES: [string, string, string] = ['Pay with USDT (sandbox Binance Pay)', 'Pay in USDT', 'Payment failed'];

/** The redirect pages of a PSE or Peruvian online-banking payment (served as the wallet's): the shopper's bank, not a wallet. */
const BANK_TITLES: Readonly<Partial<Record<Payment['payment_method'], [string, string, string]>>> = {
  pse: ['Pay at your bank through PSE', 'Pay from the bank account', 'Reject at the bank'],
  payin: ['Pay in your online banking', 'Pay from the bank account', 'Reject at the bank'],
};

/** One button of a sandbox page's form: it posts the outcome back to the page's own path. */
const button = (outcome: 'success' | 'failed', cls: string, label: string) =>
  `<form method="post"><input type="hidden" name="outcome" value="${outcome}">` +
  `<button class="${cls}" type="submit">${label}</button></form>`;

const frame = (title: string, inner: string) =>
  `<main class="layout"><div class="panel"><p class="badge">SANDBOX</p><h1 class="merchant">${esc(title)}</h1>${inner}</div></main>`;

export function renderSandboxPage(kind: SandboxPageKind, p: Payment): HttpResponse {
  const crypto = kind === 'pay' && p.payment_method === 'crypto';
  const [title, yes, no] = (kind === 'wallet' ? BANK_TITLES[p.payment_method] : undefined) ?? (crypto ? CRYPTO_TITLES : TITLES[kind]);
  const amount = `${fromMinor(p.amount_minor, p.currency)} ${p.currency}`;
  const quote = p.artefact?.crypto_amount;
  const quoted = crypto && quote ? `<p class="muted">${esc(`${quote} ${p.artefact?.crypto_currency ?? 'USDT'}`)}</p>` : '';
  const card = p.card ? `<p class="muted">${esc(p.card.brand)} •••• ${esc(p.card.last_four)}</p>` : '';
  const actions = isOpenPaymentStatus(p.status)
    ? `<div class="actions">${button('success', 'btn', yes)}\n${button('failed', 'btn btn-ghost', no)}</div>`
    : `<p>This payment is <b>${esc(p.status)}</b>.</p>`;
  const body = `<p class="amount">${esc(amount)}</p>${quoted}${card}<p class="muted small">Payment ${esc(p.payment_id)}</p>${actions}`;
  return htmlPage({ title, body: frame(title, body), formsRedirectOffSite: true });
}

const MANDATE_TITLES: Readonly<Record<Mandate['method'], string>> = {
  card: 'Save your card for recurring charges',
  pix_automatico: 'Authorise Pix Automático in your bank app',
};

/**
 * A test mandate's approval (the redirect a card mandate answers; for PIX, a stand-in for the bank app): Approve or
 * Reject while pending_approval, else its status (where the payer lands without success_url or cancel_url).
 */
export function renderMandatePage(m: Mandate): HttpResponse {
  const pending = m.status === 'pending_approval';
  const title = pending ? MANDATE_TITLES[m.method] : `Mandate ${m.status}`;
  const money = (minor: number) => `${fromMinor(minor, m.currency)} ${m.currency}`;
  const amount = m.amount_minor !== null ? money(m.amount_minor) : `up to ${money(m.max_amount_minor ?? 0)}`;
  const card = pending && m.method === 'card' ? `<p class="muted">Test card visa •••• 4242</p>` : '';
  const actions = pending
    ? `<div class="actions">${button('success', 'btn', 'Approve')}\n${button('failed', 'btn btn-ghost', 'Reject')}</div>`
    : `<p>This mandate is <b>${esc(m.status)}</b>.</p>`;
  const body =
    `<p class="amount">${esc(amount)}</p><p>${esc(m.description)}</p>` +
    `<p class="muted">${esc(m.frequency)} from ${esc(m.start_date)}${m.end_date ? ` to ${esc(m.end_date)}` : ''}</p>${card}` +
    `<p class="muted small">Mandate ${esc(m.mandate_id)}</p>${actions}`;
  return htmlPage({ title, body: frame(title, body), formsRedirectOffSite: true });
}

export function renderDonePage(p: Payment): HttpResponse {
  return htmlPage({ title: 'Payment result', body: frame(`Payment ${p.status}`, `<p class="muted">${esc(p.payment_id)}</p>`) });
}
