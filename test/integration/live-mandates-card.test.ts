/**
 * Live cards on file through the fake Adyen (DESIGN.md 9.3), over HTTP as the payer's browser and the merchant see
 * them: a frictionless approval, an approval finished by Adyen's notification (the payer never came back), a
 * declined charge, a cancel Adyen did not confirm, bad form input and a forged notice. Chromium's path through the
 * 3-D Secure challenge is test/browser/mandate-live-card.test.ts.
 */
import { mandateReferenceOf, shopperReferenceOf } from '../../shared/adapters/providers/adyen/adyen.transformers';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { handler as reconcileProviders } from '../../functions/jobs/reconcile-providers.handler';
import { addDays, localToday } from '../../shared/domain/mandates/mandate';
import type { FakeAdyen } from '../support/fake-adyen';
import { startAdyenLiveStage, type AdyenLiveStage } from '../support/live-adyen';
import type { TestStack } from '../support/test-stack';
import { balanceMinorOf } from '../support/live-stage';
import { CPF } from '../support/payments';

jest.setTimeout(60_000);
let adyen: FakeAdyen;
let stack: TestStack;
let apiKey: string;

let stage: AdyenLiveStage;

beforeAll(async () => {
  stage = await startAdyenLiveStage('Academia');
  ({ adyen, stack, apiKey } = stage);
  adyen.setNotificationUrl(`${stack.baseUrl}/providers/adyen/notifications`);
});

afterAll(() => stage?.stop());

const api = (method: string, path: string, body?: unknown) =>
  stack.request(path, {
    method,
    apiKey,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function mandate(over: Record<string, unknown> = {}): Promise<string> {
  const r = await api('POST', '/api/v1/mandates', {
    country: 'BRA',
    currency: 'BRL',
    method: 'card',
    customer: { name: 'Ana Silva', email: 'ana@example.com', document: CPF },
    description: 'Plano mensal',
    frequency: 'monthly',
    max_amount: 100,
    start_date: localToday(new Date()),
    success_url: 'https://shop.example.com/ok',
    cancel_url: 'https://shop.example.com/cancel',
    ...over,
  });
  expect(r.status).toBe(200);
  return r.body.mandate_id as string;
}

/** The payer's browser posting the approval page's form (no redirects followed). */
const approve = (id: string, card: Record<string, string> = {}) =>
  fetch(`${stack.baseUrl}/mandates/${id}/approve`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Mozilla/5.0 test', accept: 'text/html' },
    body: new URLSearchParams({
      holder_name: 'ANA SILVA',
      number: '4111111145551142',
      expiry_month: '03',
      expiry_year: '2030',
      cvv: '737',
      ...card,
    }),
  });

const get = async (id: string) => (await api('GET', `/api/v1/mandates/${id}`)).body;

it('frictionless: the card stored at once, the payer sent to success_url, the mandate active with the card’s last four', async () => {
  const id = await mandate();
  const page = await fetch(`${stack.baseUrl}/mandates/${id}/approve`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('up to R$');
  const r = await approve(id);
  expect(r.status).toBe(303);
  expect(r.headers.get('location')).toBe('https://shop.example.com/ok');
  expect(await get(id)).toMatchObject({ status: 'active', card: { last_four: '1142' } });
  expect(adyen.storedMethods().filter((s) => s.shopperReference === shopperReferenceOf(id))).toHaveLength(1);
  // Approved: a second post changes nothing and calls nothing.
  const calls = adyen.requests.length;
  expect((await approve(id)).headers.get('location')).toBe('https://shop.example.com/ok');
  expect(adyen.requests.length).toBe(calls);
});

it('the return got no answer: Adyen’s notice naming the stored card activates the mandate, once; a forged one does nothing', async () => {
  const id = await mandate();
  adyen.nextCard({ resultCode: 'ChallengeShopper' });
  const r = await approve(id);
  expect([200, 303]).toContain(r.status);
  expect((await get(id)).status).toBe('pending_approval');
  adyen.authenticate(mandateReferenceOf(id), true);
  const forged = await adyen.notify([adyen.item({ eventCode: 'AUTHORISATION', merchantReference: mandateReferenceOf(id) }, 'forged')]);
  expect(forged.status).toBe(200);
  expect((await get(id)).status).toBe('pending_approval');
  // Adyen authorised and stored the card (its /payments/details answer was lost): its notice names the token.
  const token = { 'tokenization.storedPaymentMethodId': 'M5N7TQ4TG5PFWR50', 'tokenization.shopperReference': shopperReferenceOf(id) };
  const notice = adyen.item({ eventCode: 'AUTHORISATION', merchantReference: mandateReferenceOf(id), additionalData: token });
  expect(await adyen.notify([notice])).toMatchObject({ status: 200, body: '[accepted]' });
  expect(await get(id)).toMatchObject({ status: 'active', approved_at: expect.any(String), card: { last_four: '1142' } });
  // The same notice again (Adyen redelivers) moves nothing: one mandate.approved.
  expect((await adyen.notify([notice])).status).toBe(200);
  const events = await api('GET', `/api/v1/events?object_id=${id}`);
  expect(events.body.data.map((e: { type: string }) => e.type)).toEqual(['mandate.approved']);
});

it('a declined charge fails with its code and moves no money; a cancel Adyen does not confirm changes nothing', async () => {
  const id = await mandate({ retry_policy: 'retry_3_in_7_days' });
  expect((await approve(id)).status).toBe(303);
  const before = await balanceMinorOf(stack, apiKey, 'BRL');
  const charge = await api('POST', `/api/v1/mandates/${id}/charges`, { amount: 10.51, due_date: localToday(new Date()) });
  expect(charge.status).toBe(200);
  expect(charge.body).toMatchObject({ status: 'failed', failure_code: 'INSUFFICIENT_FUNDS', mandate_id: id });
  expect(await balanceMinorOf(stack, apiKey, 'BRL')).toBe(before);
  // retry_3_in_7_days: the failed cycle may be charged again (the merchant's retry); without it, never.
  expect((await api('POST', `/api/v1/mandates/${id}/charges`, { amount: 10, due_date: localToday(new Date()) })).body.status).toBe(
    'success',
  );
  const strict = await mandate({ retry_policy: 'none' });
  expect((await approve(strict)).status).toBe(303);
  await api('POST', `/api/v1/mandates/${strict}/charges`, { amount: 10.51, due_date: localToday(new Date()) });
  const again = await api('POST', `/api/v1/mandates/${strict}/charges`, { amount: 10, due_date: localToday(new Date()) });
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('MANDATE_CYCLE_ALREADY_CHARGED');

  adyen.failNext('storedPaymentMethods', { status: 503 });
  const refused = await api('POST', `/api/v1/mandates/${id}/cancel`);
  expect(refused.status).toBe(502);
  expect((await get(id)).status).toBe('active');
  const cancelled = await api('POST', `/api/v1/mandates/${id}/cancel`);
  expect(cancelled.body).toMatchObject({ status: 'cancelled' });
  expect(adyen.storedMethods().filter((s) => s.shopperReference === shopperReferenceOf(id) && !s.disabled)).toHaveLength(0);
  expect(adyen.violations).toEqual([]);
});

it('bad form input: 400 naming the field, nothing sent to Adyen; another merchant’s or a sandbox mandate has no page', async () => {
  const id = await mandate();
  const calls = adyen.requests.length;
  const r = await approve(id, { number: '4111 1111' });
  expect(r.status).toBe(400);
  expect(await r.text()).toContain('number');
  expect(adyen.requests.length).toBe(calls);
  expect((await get(id)).status).toBe('pending_approval');
  expect((await fetch(`${stack.baseUrl}/mandates/md_A1b2C3d4E5f6G7h8I9j0KlMnOp/approve`)).status).toBe(404);
});

/** The reconciliation job as the scheduler runs it, at `seconds` from now. */
const runJob = (seconds: number) =>
  reconcileProviders(
    { time: new Date(Date.now() + seconds * 1000).toISOString() } as ScheduledEvent,
    { getRemainingTimeInMillis: () => 60_000, functionName: 'reconcile-providers' } as Context,
  );

it('expiry: a page never finished, past the approval deadline; an active mandate past its end date, its card disabled', async () => {
  const abandoned = await mandate();
  const ending = await mandate({ start_date: localToday(new Date()), end_date: addDays(localToday(new Date()), 1) });
  expect((await approve(ending)).status).toBe(303);
  await runJob(60); // nothing is due yet
  expect((await get(abandoned)).status).toBe('pending_approval');
  expect((await get(ending)).status).toBe('active');
  await runJob(3 * 86_400);
  expect(await get(abandoned)).toMatchObject({ status: 'expired', ended_at: expect.any(String) });
  expect(await get(ending)).toMatchObject({ status: 'expired' });
  expect(adyen.storedMethods().filter((s) => s.shopperReference === shopperReferenceOf(ending) && !s.disabled)).toHaveLength(0);
  const events = await api('GET', `/api/v1/events?object_id=${abandoned}`);
  expect(events.body.data.map((e: { type: string }) => e.type)).toEqual(['mandate.expired']);
});
