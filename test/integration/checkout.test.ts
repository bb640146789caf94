/** Hosted checkout over HTTP: SPEC.md 3.2's rows, GET semantics, process per method kind, cancellation, isolation. */
import type { TestMerchant, TestStack } from '../support/test-stack';
import { balanceMinor, card, customer, events, ledger, listed, payments, paymentsSuite } from '../support/payments';
import { contractFetch } from '../support/contract';

const suite = paymentsSuite();
let stack: TestStack;
let m: TestMerchant;
let api: ReturnType<typeof payments>;
beforeAll(() => {
  ({ stack, m, api } = suite);
});

async function newSession(over: Record<string, unknown> = {}) {
  const r = await api.createSession(over);
  expect(r.status).toBe(200);
  return r.body.session_id as string;
}

describe('POST /api/v1/checkout', () => {
  it('creates a pending session and answers exactly SPEC.md 4.1.1', async () => {
    const before = Date.now();
    const r = await api.createSession({ expires_in_minutes: 45 });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['checkout_url', 'expires_at', 'session_id', 'status', 'success']);
    expect(r.body).toMatchObject({ success: true, status: 'redirect' });
    expect(r.body.session_id).toMatch(/^cs_[A-Za-z0-9_-]{22}$/);
    expect(r.body.checkout_url).toBe(`${stack.baseUrl}/checkout/${r.body.session_id}`);
    const minutes = (Date.parse(r.body.expires_at) - before) / 60_000;
    expect(minutes).toBeGreaterThan(44.9);
    expect(minutes).toBeLessThan(45.1);
  });

  it('replays an X-Idempotency-Key create without a second session', async () => {
    const key = `ck-${Date.now()}`;
    const a = await api.createSession({}, { 'x-idempotency-key': key });
    const b = await api.createSession({}, { 'x-idempotency-key': key });
    expect(b.text).toBe(a.text);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses a country the merchant is not enabled for', async () => {
    const narrow = await stack.createMerchant({ countries: ['MEX'] });
    const r = await payments(stack, narrow).createSession();
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('COUNTRY_NOT_SUPPORTED');
    expect(await listed(narrow, 'SESSION')).toHaveLength(0);
  });

  it.each([
    [{ amount: 0 }, 'amount'],
    [{ amount: -5 }, 'amount'],
    [{ amount: 10.123 }, 'amount'],
    [{ amount: 'ten' }, 'amount'],
    [{ currency: 'CLP', country: 'CHL', amount: 100.5 }, 'amount'],
    [{ currency: 'MXN' }, 'currency'],
    [{ currency: 'EUR' }, 'currency'],
    [{ country: 'FRA' }, 'country'],
    [{ success_url: 'not a url' }, 'success_url'],
    [{ cancel_url: 'ftp://shop.example/x' }, 'cancel_url'],
    [{ notification_url: 'javascript:alert(1)' }, 'notification_url'],
    [{ notification_url: 'http://169.254.169.254/latest/meta-data' }, 'notification_url'],
    [{ notification_url: 'http://10.1.2.3/hook' }, 'notification_url'],
    [{ notification_url: 'https://user:pw@shop.example/hook' }, 'notification_url'],
    [{ notification_url: 'http://[::ffff:127.0.0.1]/hook' }, 'notification_url'],
    [{ expires_in_minutes: 4 }, 'expires_in_minutes'],
    [{ expires_in_minutes: 1441 }, 'expires_in_minutes'],
    [{ expires_in_minutes: 10.5 }, 'expires_in_minutes'],
    [{ metadata: { nested: { a: 1 } } }, 'metadata.nested'],
    [{ customer: { email: 'nope' } }, 'customer.email'],
    [{ description: 'x'.repeat(501) }, 'description'],
    [{ order_number: 'x'.repeat(101) }, 'order_number'],
    [{ environment: 'staging' }, 'environment'],
  ])('rejects bad input #%# with 400 naming the field and writes nothing', async (over, field) => {
    const fresh = await stack.createMerchant();
    const r = await payments(stack, fresh).createSession(over);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
    expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await listed(fresh, 'SESSION')).toHaveLength(0);
  });

  it('accepts USD for Ecuador and whole pesos for Chile', async () => {
    expect((await api.createSession({ currency: 'USD', country: 'ECU', amount: 12.34 })).status).toBe(200);
    expect((await api.createSession({ currency: 'CLP', country: 'CHL', amount: 15000 })).status).toBe(200);
  });
});

describe('GET /api/v1/checkout/{session_id}', () => {
  it('returns the full record with no payment yet', async () => {
    const id = await newSession({ description: 'Order 1', customer: { name: 'Ana', email: 'ana@example.com' } });
    const r = await api.getSession(id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id,
      merchant_id: m.merchantId,
      merchant_name: 'Test Merchant',
      amount: 100.5,
      currency: 'BRL',
      country: 'BRA',
      description: 'Order 1',
      customer: { name: 'Ana', email: 'ana@example.com' },
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/cancel',
      operation_type: 'payin',
      status: 'pending',
      payment_status: null,
      payment_id: null,
    });
    const ids = r.body.available_methods.map((x: { id: string }) => x.id);
    expect(ids).toEqual(expect.arrayContaining(['pix', 'card', 'boleto']));
    for (const x of r.body.available_methods) {
      expect(x).toEqual(
        expect.objectContaining({
          id: expect.any(String),
          type: expect.any(String),
          name: expect.any(String),
          enabled: expect.any(Boolean),
          flow_type: expect.stringMatching(/^(embedded|redirect)$/),
        }),
      );
    }
  });

  it('reports the payment status once a payment exists (success rather than completed)', async () => {
    const id = await newSession();
    const p = await api.process(id, 'pix');
    let r = await api.getSession(id);
    expect(r.body).toMatchObject({ status: 'pending', payment_status: 'pending', payment_id: p.body.payment_id });
    await api.simulate(p.body.payment_id, 'success');
    r = await api.getSession(id);
    expect(r.body).toMatchObject({ status: 'success', payment_status: 'success', payment_id: p.body.payment_id });
  });

  it('answers 404 SESSION_NOT_FOUND for another merchant’s session, and 400 for a malformed id', async () => {
    const id = await newSession();
    const other = payments(stack, await stack.createMerchant());
    expect((await other.getSession(id)).body.error.code).toBe('SESSION_NOT_FOUND');
    expect((await other.cancelSession(id)).status).toBe(404);
    expect((await api.getSession('cs_short')).status).toBe(400);
  });
});

describe('POST /api/v1/checkout/{session_id}/cancel', () => {
  it('cancels a pending session and writes its event', async () => {
    const id = await newSession();
    const r = await api.cancelSession(id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'cancelled', message: expect.any(String) });
    expect((await api.getSession(id)).body.status).toBe('cancelled');
    const evs = await events(m);
    expect(evs.some((e) => e.type === 'checkout.session.cancelled' && e.object_id === id)).toBe(true);
  });

  it('refuses to cancel a completed or an already-cancelled session and leaves it unchanged', async () => {
    const id = await newSession();
    await api.process(id, 'card', { card: card('4242424242424242') });
    const r = await api.cancelSession(id);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('SESSION_NOT_PENDING');
    expect((await api.getSession(id)).body.status).toBe('success');
    const c = await newSession();
    await api.cancelSession(c);
    expect((await api.cancelSession(c)).status).toBe(409);
  });

  it('cancels the session’s open PIX payment with it', async () => {
    const id = await newSession();
    const p = await api.process(id, 'pix');
    await api.cancelSession(id);
    expect((await api.status(p.body.payment_id)).body.status).toBe('cancelled');
    expect((await api.simulate(p.body.payment_id, 'success')).status).toBe(409);
  });
});

describe('POST /api/v1/checkout/process', () => {
  it('PIX: pending with a BR Code and a QR image URL the service serves', async () => {
    const id = await newSession();
    const r = await api.process(id, 'pix');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'pending', payment_id: expect.stringMatching(/^pi_/) });
    expect(r.body.pix_code).toMatch(/^000201.*br\.gov\.bcb\.pix.*6304[0-9A-F]{4}$/);
    expect(r.body.pix_qr_code).toBe(`${stack.baseUrl}/checkout/pix-qr/${r.body.payment_id}`);
    const img = await contractFetch(r.body.pix_qr_code);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await img.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  });

  it('card with 3DS: processing with redirect_url; the challenge sends the customer to success_url', async () => {
    const id = await newSession();
    const r = await api.process(id, 'card', { card: card('4000000000003220') });
    expect(r.body).toMatchObject({
      success: true,
      status: 'processing',
      redirect_url: `${stack.baseUrl}/sandbox/3ds/${r.body.payment_id}`,
    });
    const page = await contractFetch(r.body.redirect_url);
    expect(await page.text()).toContain('Authenticate');
    const done = await api.page('3ds', r.body.payment_id, 'success');
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`https://shop.example/ok?session_id=${id}`);
    expect((await api.getSession(id)).body.status).toBe('success');
  });

  it('card 3DS failed: back to the hosted page, and the session stays payable', async () => {
    const id = await newSession();
    const r = await api.process(id, 'card', { card: card('4000000000003220') });
    const done = await api.page('3ds', r.body.payment_id, 'failed');
    expect(done.headers.get('location')).toBe(`${stack.baseUrl}/checkout/${id}`);
    expect((await api.getSession(id)).body).toMatchObject({ status: 'failed', payment_status: 'failed' });
    const retry = await api.process(id, 'card', { card: card('5555555555554444') });
    expect(retry.body.status).toBe('success');
  });

  it('declined card: the failure shape, then a retry succeeds; one success per session', async () => {
    const id = await newSession();
    const before = await balanceMinor(m);
    const declined = await api.process(id, 'card', { card: card('4000000000000002') });
    expect(declined.status).toBe(422);
    expect(declined.body).toMatchObject({
      success: false,
      status: 'failed',
      error_message: expect.any(String),
      failure_code: 'card_declined',
    });
    const ok = await api.process(id, 'card', { card: card('4242424242424242') });
    expect(ok.body).toMatchObject({ success: true, status: 'success', card_brand: 'visa', card_last_four: '4242' });
    const again = await api.process(id, 'pix');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, status: 'failed' });
    expect(await balanceMinor(m)).toBe(before + 10050);
  });

  it.each([
    ['boleto', 'BRA', 'BRL', 100, /^\d{47}$/, 'boleto_line'],
    ['spei', 'MEX', 'MXN', 100, /^\d{18}$/, 'clabe'],
    ['cip', 'PER', 'PEN', 100, /^\d{8}$/, 'cip_code'],
    ['cash', 'COL', 'COP', 50000, /^\d{14}$/, 'voucher_reference'],
    ['bank_transfer', 'CHL', 'CLP', 20000, /^[A-Z0-9]{10}$/, 'reference'],
  ])('%s in %s: pending with its artefact', async (method, country, currency, amount, pattern, field) => {
    const docs: Record<string, string> = {
      BRA: '52998224725',
      MEX: 'GODE561231HDFRRN00',
      PER: '12345678',
      COL: '1020304050',
      CHL: '12.345.678-5',
    };
    const id = await newSession({ country, currency, amount });
    const r = await api.process(id, method, { customer: { ...customer, document: docs[country] } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'pending' });
    expect(r.body[field]).toMatch(pattern);
  });

  // SPEC.md's market table promises a bank transfer in Argentina and Ecuador: svc-mt-25 and svc-mt-26, as the others.
  it.each([
    { country: 'ARG', currency: 'ARS', amount: 25_000, code: 'svc-mt-25', locale: 'es-AR', document: '20123456', money: '25.000,00' },
    { country: 'ECU', currency: 'USD', amount: 120.5, code: 'svc-mt-26', locale: 'es-EC', document: '1710034065', money: '120,50' },
  ])('bank_transfer in $country ($code): offered, shown in Spanish, pending with the account and reference, then paid', async (t) => {
    const id = await newSession({ country: t.country, currency: t.currency, amount: t.amount });
    const offered = (await api.getSession(id)).body.available_methods as Array<Record<string, unknown>>;
    expect(offered.find((x) => x.id === 'bank_transfer')).toMatchObject({
      type: 'bank_transfer',
      method_code: t.code,
      enabled: true,
      flow_type: 'embedded',
    });
    const html = await (await contractFetch(`${stack.baseUrl}/checkout/${id}`, { headers: { 'accept-language': t.locale } })).text();
    expect(html).toMatch(/value="bank_transfer"[^]*?<span class="tile-name">Transferencia bancaria<\/span>/);
    expect(html).toContain(t.money);
    const before = await balanceMinor(m, t.currency);
    const r = await api.process(id, 'bank_transfer', { customer: { ...customer, document: t.document } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      status: 'pending',
      payment_method: 'bank_transfer',
      account_number: expect.stringMatching(/^\d{10}$/),
      reference: expect.stringMatching(/^[A-Z0-9]{10}$/),
    });
    const paymentId = r.body.payment_id as string;
    expect((await api.simulate(paymentId, 'success')).status).toBe(200);
    expect((await api.status(paymentId)).body).toMatchObject({
      payment_method: 'bank_transfer',
      status: 'success',
      amount: t.amount,
      currency: t.currency,
    });
    expect((await api.getSession(id)).body).toMatchObject({ status: 'success', payment_id: paymentId });
    expect(await balanceMinor(m, t.currency)).toBe(before + Math.round(t.amount * 100));
  });

  it('wallet: pending with a redirect to the sandbox approval page, which completes it', async () => {
    const id = await newSession();
    const r = await api.process(id, 'wallet', { customer: { ...customer, phone: '+5511999990000' } });
    expect(r.body).toMatchObject({ status: 'pending', redirect_url: `${stack.baseUrl}/sandbox/wallet/${r.body.payment_id}` });
    const done = await api.page('wallet', r.body.payment_id, 'success');
    expect(done.headers.get('location')).toContain('https://shop.example/ok');
  });

  /** Bank redirects with a kind of their own: the sandbox sends the shopper to its bank page, as it does for wallets. */
  const BANK_REDIRECTS = [
    {
      kind: 'pse',
      type: 'bank_transfer',
      code: 'svc-mt-14',
      name: 'PSE',
      session: { country: 'COL', currency: 'COP', amount: 50_000 },
      locale: 'es-CO',
      tile: 'PSE',
      document: '1020304050',
      bankTransfer: 'svc-mt-17',
      bankPage: 'Pay at your bank through PSE',
      // Brazil, with the default (Brazilian) customer.
      elsewhere: {},
      elsewhereDocument: null,
    },
    {
      kind: 'payin',
      type: 'payin',
      code: 'svc-mt-3',
      name: 'Online banking',
      session: { country: 'PER', currency: 'PEN', amount: 100 },
      locale: 'es-PE',
      tile: 'Banca por internet',
      document: '12345678',
      bankTransfer: 'svc-mt-11',
      bankPage: 'Pay in your online banking',
      elsewhere: { country: 'COL', currency: 'COP', amount: 50_000 },
      elsewhereDocument: '1020304050',
    },
  ] as const;

  it.each(BANK_REDIRECTS)(
    '$kind in $session.country: offered as $name ($code), a redirect to the sandbox’s bank page, recorded as $kind',
    async (m) => {
      const id = await newSession(m.session);
      const offered = (await api.getSession(id)).body.available_methods as Array<Record<string, unknown>>;
      expect(offered.find((x) => x.id === m.kind)).toMatchObject({
        type: m.type,
        name: m.name,
        method_code: m.code,
        enabled: true,
        flow_type: 'redirect',
      });
      // The country's bank_transfer stays its own code, the transfer to an account shown.
      expect(offered.find((x) => x.id === 'bank_transfer')).toMatchObject({ method_code: m.bankTransfer, flow_type: 'embedded' });
      // The hosted page offers it, named in the shopper's Spanish.
      const html = await (await contractFetch(`${stack.baseUrl}/checkout/${id}`, { headers: { 'accept-language': m.locale } })).text();
      expect(html).toContain(`lang="${m.locale}"`);
      expect(html).toMatch(new RegExp(`value="${m.kind}"[^]*?<span class="tile-name">${m.tile}</span>`));

      const r = await api.process(id, m.kind, { customer: { ...customer, document: m.document } });
      expect(r.status).toBe(200);
      const paymentId = r.body.payment_id as string;
      expect(r.body).toMatchObject({
        success: true,
        status: 'pending',
        payment_method: m.kind,
        redirect_url: `${stack.baseUrl}/sandbox/wallet/${paymentId}`,
      });
      expect((await api.status(paymentId)).body).toMatchObject({
        payment_method: m.kind,
        status: 'pending',
        amount: m.session.amount,
        currency: m.session.currency,
      });
      const bankPage = await (await contractFetch(`${stack.baseUrl}/sandbox/wallet/${paymentId}`)).text();
      expect(bankPage).toContain(m.bankPage);
      const done = await api.page('wallet', paymentId, 'success');
      expect(done.headers.get('location')).toContain('https://shop.example/ok');
      expect((await api.status(paymentId)).body).toMatchObject({ payment_method: m.kind, status: 'success' });
      expect((await api.getSession(id)).body).toMatchObject({ status: 'success', payment_id: paymentId });
    },
  );

  it.each(BANK_REDIRECTS)('$kind outside $session.country answers METHOD_NOT_AVAILABLE and starts nothing', async (m) => {
    const id = await newSession(m.elsewhere);
    expect((await api.getSession(id)).body.available_methods.map((x: { id: string }) => x.id)).not.toContain(m.kind);
    const r = await api.process(id, m.kind, m.elsewhereDocument ? { customer: { ...customer, document: m.elsewhereDocument } } : undefined);
    expect(r.status).toBe(400); // SPEC.md's error table: METHOD_NOT_AVAILABLE is 400
    expect(r.body).toMatchObject({
      success: false,
      status: 'failed',
      error_code: 'METHOD_NOT_AVAILABLE',
      error_message: expect.stringContaining(m.kind),
    });
    expect((await api.getSession(id)).body.payment_id).toBeNull();
  });

  it('refuses methods the country lacks, a bad CPF, and bad card fields, naming each field', async () => {
    const id = await newSession();
    expect((await api.process(id, 'spei')).body).toMatchObject({
      success: false,
      status: 'failed',
      error_message: expect.stringContaining('spei'),
    });
    const badDoc = await api.process(id, 'pix', { customer: { ...customer, document: '52998224724' } });
    expect(badDoc.status).toBe(400);
    expect(badDoc.body.error_message).toContain('customer.document');
    for (const [c, field] of [
      [card('424242424242'), 'card.number'],
      [card('42424242424242424242'), 'card.number'],
      [card('4242424242424241'), 'card.number'],
      [card('4242424242424242', '12'), 'card.cvv'],
      [card('4242424242424242', '12345'), 'card.cvv'],
      [{ ...card('4242424242424242'), expiry_month: '13' }, 'card.expiry_month'],
      [{ ...card('4242424242424242'), expiry_year: '2020' }, 'card.expiry'],
    ] as const) {
      const r = await api.process(id, 'card', { card: c });
      expect(r.status).toBe(400);
      expect(r.body.error_message).toContain(field);
    }
    expect((await api.getSession(id)).body.payment_id).toBeNull();
  });

  it('answers 404 in the failure shape for an unknown session', async () => {
    const unknown = await api.process('cs_AAAAAAAAAAAAAAAAAAAAAA', 'pix');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, status: 'failed' });
  });

  it('credits the balance and writes the ledger entry and payment.success event in one go', async () => {
    const fresh = await stack.createMerchant();
    const api2 = payments(stack, fresh);
    const id = (await api2.createSession()).body.session_id;
    const p = await api2.process(id, 'card', { card: card('5555555555554444') });
    expect(await balanceMinor(fresh)).toBe(10050);
    const entries = await ledger(fresh);
    expect(entries).toEqual([expect.objectContaining({ amount_minor: 10050, object_id: p.body.payment_id, reason: 'payment' })]);
    const ev = (await events(fresh)).find((e) => e.type === 'payment.success');
    expect(ev?.payload).toMatchObject({
      event: 'payment.success',
      payment_id: p.body.payment_id,
      checkout_session_id: id,
      merchant_id: fresh.merchantId,
      reference_id: 'ORD-1',
      status: 'success',
      amount: 100.5,
      currency: 'BRL',
      payment_method: 'card',
      paid_at: expect.any(String),
      timestamp: expect.any(String),
      metadata: { cart: '42' },
      livemode: false,
    });
  });
});

describe('hosted checkout page', () => {
  it('serves the page at checkout_url with the merchant, amount and methods', async () => {
    const r = await api.createSession({ description: 'Blue shirt' });
    const page = await contractFetch(r.body.checkout_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    // No Accept-Language: the country's language (pt-BR for BRA), amounts as Brazil writes them.
    for (const text of ['lang="pt-BR"', 'Test Merchant', 'R$\u00a0100,50', 'Blue shirt', 'PIX', 'Modo de teste', 'CPF ou CNPJ'])
      expect(html).toContain(text);
  });

  it('GET /checkout/{id}/status: the shopper-facing state and latest payment, no key needed, unknown id 404', async () => {
    const r = await api.createSession();
    const id = r.body.session_id as string;
    const before = await contractFetch(`${stack.baseUrl}/checkout/${id}/status`);
    expect(before.status).toBe(200);
    expect(before.headers.get('cache-control')).toBe('no-store');
    expect(await before.json()).toEqual({ session_id: id, state: 'open', expires_at: r.body.expires_at, payment: null, next_url: null });
    const pix = await api.process(id, 'pix');
    const during = (await (await contractFetch(`${stack.baseUrl}/checkout/${id}/status`)).json()) as any;
    expect(during.payment).toMatchObject({
      payment_id: pix.body.payment_id,
      status: 'pending',
      payment_method: 'pix',
      pix_qr_code: pix.body.pix_qr_code,
      artefact: { pix_code: pix.body.pix_code },
    });
    await api.simulate(pix.body.payment_id, 'success');
    const after = (await (await contractFetch(`${stack.baseUrl}/checkout/${id}/status`)).json()) as any;
    expect(after).toMatchObject({
      state: 'completed',
      payment: { status: 'success' },
      next_url: `https://shop.example/ok?session_id=${id}`,
    });
    expect((await contractFetch(`${stack.baseUrl}/checkout/cs_${'z'.repeat(22)}/status`)).status).toBe(404);
  });

  it('card installments: allowed counts for the country pass, others are 400 naming card.installments', async () => {
    const id = (await api.createSession()).body.session_id as string;
    // 12x R$ 8,38: above the R$ 5 floor
    const twelve = await api.process(id, 'card', { card: { ...card('4242424242424242'), installments: 12 } });
    expect(twelve.body.status).toBe('success');
    const mx = (await api.createSession({ amount: 250, currency: 'MXN', country: 'MEX' })).body.session_id as string;
    const two = await api.process(mx, 'card', {
      customer: { ...customer, document: 'BOXW310820HNERXN09' },
      card: { ...card('4242424242424242'), installments: 2 },
    });
    expect(two.status).toBe(400);
    expect(two.body).toMatchObject({ success: false, error_code: 'VALIDATION_ERROR', details: [{ field: 'card.installments' }] });
  });
});

describe('artefacts as served over HTTP, checked by independent libraries', () => {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { hasError, parsePix } = require('pix-utils') as typeof import('pix-utils');
  const jsQR = require('jsqr') as typeof import('jsqr').default;
  const { PNG } = require('pngjs') as typeof import('pngjs');
  const boletoUtils = require('@mrmgomes/boleto-utils') as { validarBoleto(line: string): { sucesso: boolean; valor: number } };
  const decode = (png: Buffer) => {
    const img = PNG.sync.read(png);
    return jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data;
  };

  it('the PIX code parses with pix-utils, and both QR images decode back to exactly it', async () => {
    const id = await newSession({ amount: 42.1 });
    const r = await api.process(id, 'pix');
    const parsed = parsePix(r.body.pix_code);
    if (hasError(parsed)) throw new Error(parsed.message);
    expect(parsed).toMatchObject({ type: 'STATIC', transactionAmount: 42.1, merchantName: 'Test Merchant', countryCode: 'BR' });
    const png = Buffer.from(await (await contractFetch(r.body.pix_qr_code)).arrayBuffer());
    expect(decode(png)).toBe(r.body.pix_code);
    const direct = await api.direct({ amount: 7.25 });
    const uri: string = direct.body.pix_qr_code_base64;
    expect(decode(Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64'))).toBe(direct.body.pix_code);
  });

  it('the boleto line passes boleto-utils with the session amount', async () => {
    const id = await newSession({ amount: 321.09 });
    const r = await api.process(id, 'boleto');
    const check = boletoUtils.validarBoleto(r.body.boleto_line);
    expect(check.sucesso).toBe(true);
    expect(check.valor).toBeCloseTo(321.09, 2);
  });

  it('the SPEI CLABE passes clabe-validator (ESM-only: run in a child node process)', async () => {
    const { execFileSync } = await import('node:child_process');
    const id = await newSession({ country: 'MEX', currency: 'MXN', amount: 500 });
    const r = await api.process(id, 'spei', { customer: { ...customer, document: 'GODE561231HDFRRN00' } });
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { clabe } from 'clabe-validator'; console.log(JSON.stringify(clabe.validate(process.argv[1])))",
        r.body.clabe,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toMatchObject({ ok: true });
  });
});
