/**
 * Sandbox completion pages: the 3-D Secure challenge, the wallet (or PSE or online-banking bank) approval and "customer
 * paid" for vouchers and PIX, and the crypto order's checkout page (the sandbox's Binance Pay).
 */
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

const frame = (title: string, inner: string) =>
  `<main class="layout"><div class="panel"><p class="badge">SANDBOX</p><h1 class="merchant">${esc(title)}</h1>${inner}</div></main>`;

export function renderSandboxPage(kind: SandboxPageKind, p: Payment): HttpResponse {
  const crypto = kind === 'pay' && p.payment_method === 'crypto';
  const [title, yes, no] = (kind === 'wallet' ? BANK_TITLES[p.payment_method] : undefined) ?? (crypto ? CRYPTO_TITLES : TITLES[kind]);
  const amount = `${fromMinor(p.amount_minor, p.currency)} ${p.currency}`;
  const quote = p.artefact?.crypto_amount;
  const quoted = crypto && quote ? `<p class="muted">${esc(`${quote} ${p.artefact?.crypto_currency ?? 'USDT'}`)}</p>` : '';
  const card = p.card ? `<p class="muted">${esc(p.card.brand)} •••• ${esc(p.card.last_four)}</p>` : '';
  const button = (outcome: string, cls: string, label: string) =>
    `<form method="post"><input type="hidden" name="outcome" value="${outcome}">` +
    `<button class="${cls}" type="submit">${label}</button></form>`;
  const actions = isOpenPaymentStatus(p.status)
    ? `<div class="actions">${button('success', 'btn', yes)}\n${button('failed', 'btn btn-ghost', no)}</div>`
    : `<p>This payment is <b>${esc(p.status)}</b>.</p>`;
  const body = `<p class="amount">${esc(amount)}</p>${quoted}${card}<p class="muted small">Payment ${esc(p.payment_id)}</p>${actions}`;
  return htmlPage({ title, body: frame(title, body), formsRedirectOffSite: true });
}

export function renderDonePage(p: Payment): HttpResponse {
  return htmlPage({ title: 'Payment result', body: frame(`Payment ${p.status}`, `<p class="muted">${esc(p.payment_id)}</p>`) });
}
