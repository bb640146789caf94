/** Sandbox completion pages: the 3-D Secure challenge, the wallet approval and "customer paid" for vouchers and PIX. */
import { fromMinor } from '../../domain/money';
import type { Payment } from '../../domain/payments/payment';
import { esc, page } from './html';

export type SandboxPageKind = '3ds' | 'wallet' | 'pay';

const TITLES: Readonly<Record<SandboxPageKind, [string, string, string]>> = {
  '3ds': ['3-D Secure challenge', 'Authenticate', 'Fail authentication'],
  wallet: ['Approve in your wallet', 'Approve payment', 'Reject payment'],
  pay: ['Simulate the customer paying', 'Customer paid', 'Payment failed'],
};

export function renderSandboxPage(kind: SandboxPageKind, p: Payment): string {
  const [title, yes, no] = TITLES[kind];
  const amount = `${fromMinor(p.amount_minor, p.currency)} ${p.currency}`;
  const card = p.card ? `<p class="muted">${esc(p.card.brand)} •••• ${esc(p.card.last_four)}</p>` : '';
  const open = ['pending', 'pending_3ds', 'processing'].includes(p.status);
  const actions = open
    ? `<form method="post"><input type="hidden" name="outcome" value="success"><button type="submit">${yes}</button></form>
<form method="post"><input type="hidden" name="outcome" value="failed"><button class="secondary" type="submit">${no}</button></form>`
    : `<p>This payment is <b>${esc(p.status)}</b>.</p>`;
  return page(title, `<span class="sandbox">SANDBOX</span><h1>${title}</h1><div class="amount">${esc(amount)}</div>${card}<p class="muted">Payment ${esc(p.payment_id)}</p>${actions}`);
}

export function renderDonePage(p: Payment): string {
  return page('Payment result', `<span class="sandbox">SANDBOX</span><h1>Payment ${esc(p.status)}</h1><p class="muted">${esc(p.payment_id)}</p>`);
}
