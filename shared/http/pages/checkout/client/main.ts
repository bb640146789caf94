/// <reference lib="dom" />
/**
 * The hosted checkout page script: masks and checks the fields with the API's rules,
 * pays through POST /api/v1/checkout/process (one request at a time), shows the
 * method's result, and follows the payment live by polling the session status.
 */
import type { CountryCode } from '../../../../domain/geo';
import { cardBrand } from '../../../../domain/payments/card';
import { isOpenPaymentStatus, type PaymentStatus } from '../../../../domain/payments/payment';
import type { MessageKey } from '../i18n/en';
import { translator } from '../i18n/locale';
import { formatCountdown, formatMoney } from '../format';
import { announce, byId, h } from './dom';
import { cvvLength, formatCardNumber, formatDocument, formatExpiry, parseExpiry } from './masks';
import type { PageModel, PagePayment } from './model';
import { nextPollDelay } from './poll-schedule';
import { checkAddressField, checkCard, checkCustomerField, type CardFields, type FieldProblem } from './validate';
import { declineKey, expiredView, paidView, paymentView, type ViewContext } from './views';

const model = JSON.parse(byId('model')?.textContent ?? '{}') as PageModel;
const t = translator(model.messages);
const money = (minor: number) => formatMoney(model.tag, minor, model.currency);
const ctx: ViewContext = { model, t, amount: money(model.amountMinor) };
const country = model.country as CountryCode;

const form = byId<HTMLFormElement>('pay')!;
const alertBox = byId('alert')!;
const result = byId('result')!;
const submit = byId<HTMLButtonElement>('submit')!;
const cardBox = byId('card-fields');
const addressBox = byId('address-fields');
const walletBox = byId('wallet-fields');
const ADDRESS = ['postal_code', 'state', 'street', 'house_number', 'city'];
const input = (name: string) => byId<HTMLInputElement>(`f-${name}`);

let busy = false;
let pollTimer = 0;
/** When the shopper last acted (paid, retried, came back to the tab): the polling backs off from there. */
let actedAt = Date.now();
let tick = 0;

const chosen = () => form.querySelector<HTMLInputElement>('input[name=payment_method]:checked');
const method = () => (chosen()?.value ?? '') as PagePayment['payment_method'];

function showAlert(text: string | null) {
  alertBox.textContent = text ?? '';
  alertBox.hidden = !text;
}

function setProblem(name: string, problem: FieldProblem) {
  const el = input(name);
  const err = byId(`f-${name}-err`);
  if (!el || !err) return;
  el.setAttribute('aria-invalid', problem ? 'true' : 'false');
  err.textContent = problem ? t(problem.key, problem.vars) : '';
  err.hidden = !problem;
}

const documentLabel = () => document.querySelector(`label[for=f-document]`)?.textContent ?? '';
const cardFields = (): CardFields => ({
  number: input('number')?.value ?? '',
  expiry: input('expiry')?.value ?? '',
  cvc: input('cvc')?.value ?? '',
  holder: input('holder')?.value ?? '',
});

function check(name: string): FieldProblem {
  if (['number', 'expiry', 'cvc', 'holder'].includes(name)) return checkCard(cardFields(), new Date())[name as keyof CardFields] ?? null;
  if (ADDRESS.includes(name)) return checkAddressField(name, input(name)?.value ?? '');
  return checkCustomerField(name, input(name)?.value ?? '', country, documentLabel());
}

/** The submit button's label per method; the other methods get payment instructions. */
const SUBMIT_LABEL: Readonly<Record<string, MessageKey>> = {
  card: 'pay.button',
  pix: 'pay.button.pix',
  wallet: 'pay.button.wallet',
  pse: 'pay.button.pse',
  payin: 'pay.button.payin',
  crypto: 'pay.button.crypto',
};

/** What the button says while the browser leaves for a redirect: the wallet, PSE, the online banking, else the bank's 3-D Secure. */
const REDIRECT_LABEL: Readonly<Record<string, MessageKey>> = {
  wallet: 'pay.redirect_wallet',
  pse: 'pay.redirect_pse',
  payin: 'pay.redirect_payin',
  crypto: 'pay.redirect_crypto',
};

function syncMethod() {
  const m = method();
  if (cardBox) cardBox.hidden = m !== 'card';
  if (addressBox) addressBox.hidden = m !== 'boleto';
  if (walletBox) walletBox.hidden = m !== 'wallet';
  submit.textContent = t(SUBMIT_LABEL[m] ?? 'pay.button.voucher', { amount: ctx.amount });
}

function mask(name: string, format: (v: string, previous: string) => string, after?: () => void) {
  const el = input(name);
  let previous = el?.value ?? '';
  el?.addEventListener('input', () => {
    const atEnd = el.selectionStart === el.value.length;
    const next = format(el.value, previous);
    previous = next;
    if (next !== el.value) {
      el.value = next;
      if (atEnd) el.setSelectionRange(next.length, next.length);
    }
    if (el.getAttribute('aria-invalid') === 'true') setProblem(name, check(name));
    after?.();
  });
  el?.addEventListener('blur', () => el.value && setProblem(name, check(name)));
}

function body(kind: string) {
  const value = (n: string) => input(n)?.value.trim() ?? '';
  const customer: Record<string, string> = { name: value('name'), email: value('email'), document: value('document') };
  if (value('phone')) customer.phone = value('phone');
  const out: Record<string, unknown> = { session_id: model.sessionId, payment_method: kind, customer };
  // The chosen tile's method code (Colombia's Bre-B and PSE are two codes) and, for Brazil's wallets, the wallet named.
  const tile = chosen();
  if (tile?.dataset.methodCode) out.method_code = tile.dataset.methodCode;
  const wallet = form.querySelector<HTMLInputElement>('input[name=wallet]:checked')?.value ?? tile?.dataset.wallet;
  if (kind === 'wallet' && wallet) out.wallet = wallet;
  if (kind === 'card') {
    const exp = parseExpiry(value('expiry'));
    const installments = Number(byId<HTMLSelectElement>('f-installments')?.value ?? 1);
    out.card = {
      number: value('number').replace(/\D/g, ''),
      holder_name: value('holder'),
      expiry_month: exp?.month,
      expiry_year: exp?.year,
      cvv: value('cvc'),
      ...(installments > 1 ? { installments } : {}),
    };
    // For the card issuer's 3-D Secure 2 (the server adds the user agent and Accept header it received).
    out.browser_info = {
      color_depth: window.screen.colorDepth,
      screen_height: window.screen.height,
      screen_width: window.screen.width,
      time_zone_offset: new Date().getTimezoneOffset(),
      java_enabled: false,
      language: navigator.language,
    };
  }
  if (kind === 'boleto' && addressBox) {
    out.billing_address = {
      postal_code: value('postal_code').replace(/\D/g, ''),
      street: value('street'),
      number: value('house_number'),
      city: value('city'),
      state: value('state').toUpperCase(),
    };
  }
  return out;
}

function render(nodes: HTMLElement[]) {
  form.hidden = true;
  showAlert(null);
  result.replaceChildren(...nodes);
  result.hidden = false;
  byId('result-title')?.focus();
}

function backToForm(message: string | null) {
  window.clearTimeout(pollTimer);
  window.clearInterval(tick);
  result.hidden = true;
  result.replaceChildren();
  form.hidden = false;
  showAlert(message);
  (form.querySelector<HTMLInputElement>('input[name=payment_method]:checked') ?? submit).focus();
}

function paid(next: string) {
  window.clearTimeout(pollTimer);
  window.clearInterval(tick);
  render(paidView(ctx, next));
  window.setTimeout(() => window.location.assign(next), 1500);
}

function showPayment(p: PagePayment) {
  render(paymentView(ctx, p));
  const countdown = byId('countdown');
  if (countdown && p.expires_at) {
    const end = Date.parse(p.expires_at);
    const update = () => {
      const left = end - Date.now();
      countdown.textContent = formatCountdown(model.tag, left);
      if (left <= 0) {
        window.clearInterval(tick);
        poll(0);
      }
    };
    update();
    tick = window.setInterval(update, 1000);
  }
  if (p.payment_method !== 'card' && p.payment_method !== 'wallet') {
    actedAt = Date.now();
    poll(nextPollDelay(0));
  }
}

async function pollOnce() {
  const r = await fetch(`/checkout/${model.sessionId}/status`, { headers: { accept: 'application/json' }, cache: 'no-store' });
  if (!r.ok) return;
  const s = (await r.json()) as { state: string; payment: PagePayment | null; next_url: string | null };
  if (s.state === 'completed' || s.payment?.status === 'success') return paid(s.next_url ?? model.successUrl);
  if (s.state !== 'open') return window.location.reload();
  const p = s.payment;
  if (!p || isOpenPaymentStatus(p.status as PaymentStatus)) return poll(nextPollDelay(Date.now() - actedAt, document.hidden));
  window.clearInterval(tick);
  if (p.status === 'failed') return backToForm(t(declineKey(p.failure_code)));
  render(expiredView(ctx, p));
}

function poll(delay: number) {
  window.clearTimeout(pollTimer);
  pollTimer = window.setTimeout(() => void pollOnce().catch(() => poll(Math.max(5000, nextPollDelay(Date.now() - actedAt)))), delay);
}

function validateAll(kind: string): string | null {
  const names = [
    'name',
    'email',
    'document',
    'phone',
    ...(kind === 'card' ? ['number', 'expiry', 'cvc', 'holder'] : []),
    ...(kind === 'boleto' && addressBox ? ADDRESS : []),
  ];
  let first: string | null = null;
  for (const n of names) {
    const problem = check(n);
    setProblem(n, problem);
    if (problem && !first) first = n;
  }
  return first;
}

const PROCESS_ERRORS: Record<string, MessageKey> = {
  METHOD_NOT_AVAILABLE: 'error.method_unavailable',
  AMOUNT_LIMIT_EXCEEDED: 'error.amount_limit',
  RATE_LIMIT_EXCEEDED: 'error.rate_limited',
};
const FIELD_OF: Record<string, string> = {
  'customer.name': 'name',
  'customer.email': 'email',
  'customer.document': 'document',
  'customer.phone': 'phone',
  'card.number': 'number',
  'card.cvv': 'cvc',
  'card.holder_name': 'holder',
  'card.expiry_month': 'expiry',
  'card.expiry_year': 'expiry',
  'billing_address.postal_code': 'postal_code',
  'billing_address.state': 'state',
  'billing_address.street': 'street',
  'billing_address.number': 'house_number',
  'billing_address.city': 'city',
};

async function pay(kind: string) {
  if (busy) return;
  const invalid = validateAll(kind);
  if (invalid) {
    showAlert(t('error.summary'));
    input(invalid)?.focus();
    return;
  }
  busy = true;
  submit.disabled = true;
  submit.setAttribute('aria-busy', 'true');
  submit.textContent = t('pay.processing');
  announce(t('pay.processing'));
  let leaving = false;
  try {
    const r = await fetch('/api/v1/checkout/process', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body(kind)),
    });
    const j = (await r.json()) as Record<string, unknown> & { success: boolean };
    if (!j.success) return failed(j);
    if (typeof j.redirect_url === 'string') {
      leaving = true; // the button stays disabled while the browser goes to the bank or wallet
      submit.textContent = t(REDIRECT_LABEL[kind] ?? 'pay.redirect_3ds');
      window.location.assign(j.redirect_url);
      return;
    }
    if (j.status === 'success') return paid(model.successUrl);
    showPayment(fromProcess(j));
  } catch {
    showAlert(t('error.network'));
  } finally {
    if (!leaving) restoreButton();
  }
}

const NOT_ARTEFACT = new Set([
  'success',
  'payment_id',
  'status',
  'payment_method',
  'expires_at',
  'pix_qr_code',
  'qr_code_image',
  'redirect_url',
]);

/** The process response as the status endpoint's payment view. */
function fromProcess(j: Record<string, unknown>): PagePayment {
  const artefact = Object.fromEntries(Object.entries(j).filter(([k, v]) => !NOT_ARTEFACT.has(k) && typeof v === 'string')) as Record<
    string,
    string
  >;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    payment_id: String(j.payment_id),
    status: j.status as PagePayment['status'],
    payment_method: j.payment_method as PagePayment['payment_method'],
    expires_at: str(j.expires_at),
    pix_qr_code: str(j.pix_qr_code) ?? str(j.qr_code_image),
    failure_code: null,
    redirect_url: null,
    artefact,
  };
}

function restoreButton() {
  busy = false;
  submit.disabled = false;
  submit.removeAttribute('aria-busy');
  syncMethod();
}

function failed(j: Record<string, unknown>) {
  if (typeof j.failure_code === 'string' || j.payment_id) {
    showAlert(t(declineKey(j.failure_code as string)));
    const cvc = input('cvc');
    if (cvc) cvc.value = '';
    input('number')?.focus();
    return;
  }
  const code = String(j.error_code ?? '');
  if (code === 'SESSION_EXPIRED' || code === 'SESSION_NOT_PENDING') return window.location.reload();
  const details = Array.isArray(j.details) ? (j.details as { field: string }[]) : [];
  const fields = details.map((d) => FIELD_OF[d.field]).filter((f): f is string => Boolean(f));
  for (const f of fields)
    setProblem(f, check(f) ?? { key: f === 'document' ? 'error.document' : 'error.required', vars: { document: documentLabel() } });
  showAlert(t(fields.length ? 'error.summary' : (PROCESS_ERRORS[code] ?? 'error.generic')));
  if (fields[0]) input(fields[0])?.focus();
}

function boot() {
  const select = byId<HTMLSelectElement>('f-installments');
  for (const o of model.installments) {
    const label =
      o.count === 1
        ? t('card.installments.one', { amount: ctx.amount })
        : t('card.installments.many', { count: o.count, amount: money(o.perInstallmentMinor) });
    select?.append(h('option', { value: String(o.count) }, label));
  }
  mask('document', (v) => formatDocument(country, v));
  mask('number', formatCardNumber, () => {
    const brand = cardBrand((input('number')?.value ?? '').replace(/\D/g, ''));
    const tag = byId('card-brand');
    if (tag) tag.textContent = brand ? brand : '';
    input('cvc')?.setAttribute('maxlength', String(cvvLength(brand)));
  });
  mask('expiry', formatExpiry);
  mask('cvc', (v) => v.replace(/\D/g, ''));
  for (const n of ['name', 'email', 'phone', 'holder', 'street', 'house_number', 'city']) mask(n, (v) => v);
  mask('postal_code', (v) => {
    const d = v.replace(/\D/g, '').slice(0, 8);
    return d.length > 5 ? `${d.slice(0, 5)}-${d.slice(5)}` : d;
  });
  mask('state', (v) =>
    v
      .toUpperCase()
      .replace(/[^A-Z]/g, '')
      .slice(0, 2),
  );
  form.addEventListener('change', (e) => (e.target as HTMLElement).matches('input[name=payment_method]') && syncMethod());
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void pay(method());
  });
  result.addEventListener('click', (e) => {
    const action = (e.target as HTMLElement).closest('[data-action]')?.getAttribute('data-action');
    if (action === 'print') window.print();
    if (action === 'change') backToForm(null);
    if (action === 'retry') {
      backToForm(null);
      void pay(method());
    }
  });
  document.addEventListener('visibilitychange', () => {
    if (document.hidden || !pollTimer) return;
    actedAt = Date.now(); // back from the bank's app: the answer may be there now
    poll(0);
  });
  syncMethod();
  const p = model.payment;
  if (p && isOpenPaymentStatus(p.status as PaymentStatus)) {
    const radio = form.querySelector<HTMLInputElement>(`input[name=payment_method][value=${p.payment_method}]`);
    if (radio) radio.checked = true;
    syncMethod();
    showPayment(p);
  } else if (p?.status === 'failed') showAlert(t(declineKey(p.failure_code)));
}

boot();
