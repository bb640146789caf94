/**
 * The sandbox's payer for mandates over HTTP on the local engines (DESIGN.md 9.3): POST
 * /api/v1/sandbox/mandates/{id}/simulate produces each mandate event (approve, reject, expire, payer_cancel), and the
 * card mandate's approval page /sandbox/mandate/{id} decides with its form and sends the payer back. The scheduled
 * decision by document is held off (PAYOUT_SETTLEMENT_DELAY_SECONDS=900) so each mandate stays pending until acted on.
 */
import { localToday } from '../../shared/domain/mandates/mandate';
import { mandateDeps } from '../../shared/wiring';
import { contractFetch } from '../support/contract';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';

jest.setTimeout(60_000);

let stack: TestStack;

beforeAll(async () => {
  Object.assign(process.env, { PAYOUT_SETTLEMENT_DELAY_SECONDS: '900' });
  stack = await startTestStack({ workers: true });
});
afterAll(async () => {
  await stack.stop();
});

const mandateBody = (over: Record<string, unknown> = {}) => ({
  country: 'BRA',
  currency: 'BRL',
  method: 'pix_automatico',
  customer: { name: 'Ana Silva', email: 'ana@example.com', document: '00000000191' },
  description: 'Gym membership',
  frequency: 'monthly',
  amount: 99.9,
  start_date: localToday(new Date()),
  ...over,
});

function client(m: TestMerchant, apiKey = m.apiKey) {
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    stack.request(path, {
      method,
      apiKey,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    create: async (over: Record<string, unknown> = {}) => {
      const r = await call('POST', '/api/v1/mandates', mandateBody(over));
      expect(r.status).toBe(200);
      return r.body.mandate_id as string;
    },
    get: (id: string) => call('GET', `/api/v1/mandates/${id}`),
    simulate: (id: string, body: unknown, headers: Record<string, string> = {}) =>
      call('POST', `/api/v1/sandbox/mandates/${id}/simulate`, body, headers),
    events: async (id: string) =>
      (await call('GET', `/api/v1/events?object_id=${id}`)).body.data.map((e: { type: string }) => e.type).sort() as string[],
  };
}

const page = (id: string, kind = 'mandate') => contractFetch(`${stack.baseUrl}/sandbox/${kind}/${id}`);
const submit = (id: string, outcome: 'success' | 'failed') =>
  contractFetch(`${stack.baseUrl}/sandbox/mandate/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `outcome=${outcome}`,
    redirect: 'manual',
  });

describe('POST /api/v1/sandbox/mandates/{id}/simulate', () => {
  it('approve, then payer_cancel: mandate.approved and mandate.cancelled (cancelled_by payer); then 409', async () => {
    const c = client(await stack.createMerchant());
    const id = await c.create();
    expect((await c.get(id)).body.status).toBe('pending_approval');
    const approved = await c.simulate(id, { outcome: 'approve' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ success: true, mandate_id: id, status: 'active', approved_at: expect.any(String), card: null });
    const cancelled = await c.simulate(id, { outcome: 'payer_cancel' });
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelled_by: 'payer', ended_at: expect.any(String) });
    expect((await c.get(id)).body).toMatchObject({ status: 'cancelled', cancelled_by: 'payer' });
    expect(await c.events(id)).toEqual(['mandate.approved', 'mandate.cancelled']);
    for (const outcome of ['approve', 'reject', 'expire', 'payer_cancel']) {
      const again = await c.simulate(id, { outcome });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('MANDATE_STATE_CONFLICT');
    }
  });

  it('reject and expire a pending mandate (mandate.rejected, mandate.expired); a card approved with the test card', async () => {
    const c = client(await stack.createMerchant());
    const [rejected, expired, card] = [await c.create(), await c.create(), await c.create({ method: 'card' })];
    expect((await c.simulate(rejected, { outcome: 'reject' })).body).toMatchObject({ status: 'rejected', failure_code: 'payer_rejected' });
    expect((await c.simulate(expired, { outcome: 'expire' })).body).toMatchObject({ status: 'expired', ended_at: expect.any(String) });
    expect((await c.simulate(card, { outcome: 'approve' })).body).toMatchObject({
      status: 'active',
      card: { brand: 'visa', last_four: '4242' },
    });
    expect(await c.events(rejected)).toEqual(['mandate.rejected']);
    expect(await c.events(expired)).toEqual(['mandate.expired']);
    expect(await c.events(card)).toEqual(['mandate.approved']);
  });

  it('payer_cancel on a pending mandate is 409; a keyed retry replays the first answer', async () => {
    const c = client(await stack.createMerchant());
    const id = await c.create();
    const pendingCancel = await c.simulate(id, { outcome: 'payer_cancel' });
    expect(pendingCancel.status).toBe(409);
    expect(pendingCancel.body.error.code).toBe('MANDATE_STATE_CONFLICT');
    const headers = { 'x-idempotency-key': `sim-${id}` };
    const first = await c.simulate(id, { outcome: 'approve' }, headers);
    const replay = await c.simulate(id, { outcome: 'approve' }, headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await c.events(id)).toEqual(['mandate.approved']);
  });

  it('bad input is 400 naming the field and changes nothing; another merchant’s id 404; a live key 403', async () => {
    const m = await stack.createMerchant();
    const c = client(m);
    const id = await c.create();
    const cases: Array<[unknown, string]> = [
      [{ outcome: 'teleport' }, 'outcome'],
      [{}, 'outcome'],
      [{ outcome: 'approve', reason: 'x' }, 'reason'],
    ];
    for (const [body, field] of cases) {
      const r = await c.simulate(id, body);
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body.error.details)).toContain(field);
    }
    const badId = await c.simulate('md_short', { outcome: 'approve' });
    expect(badId.status).toBe(400);
    expect(JSON.stringify(badId.body.error.details)).toContain('mandate_id');
    expect((await client(await stack.createMerchant()).simulate(id, { outcome: 'approve' })).status).toBe(404);
    const live = await stack.admin.createKey(m.merchantId, 'live');
    const refused = await client(m, live.secret).simulate(id, { outcome: 'approve' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect((await c.get(id)).body.status).toBe('pending_approval');
    expect(await c.events(id)).toEqual([]);
  });
});

describe('the card mandate approval page /sandbox/mandate/{id}', () => {
  const urls = { success_url: 'https://shop.example/subscribed', cancel_url: 'https://shop.example/plans' };

  it('shows Approve / Reject with the page CSP; Approve activates and sends the payer to success_url', async () => {
    const c = client(await stack.createMerchant());
    const id = await c.create({ method: 'card', ...urls });
    const approval = (await c.get(id)).body.approval;
    expect(approval).toEqual({ type: 'redirect', url: `${stack.baseUrl}/sandbox/mandate/${id}` });
    const res = await page(id);
    expect(res.status).toBe(200);
    const html = await res.text();
    const nonce = /<style nonce="([^"]+)"/.exec(html)?.[1];
    expect(nonce).toBeTruthy();
    expect(res.headers.get('content-security-policy')).toContain(`style-src 'nonce-${nonce}'`);
    expect(res.headers.get('content-security-policy')).not.toContain('form-action');
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('SANDBOX');
    expect(html).toContain('99.9 BRL');
    expect(html).toMatch(/<input type="hidden" name="outcome" value="success"><button class="btn" type="submit">Approve<\/button>/);
    expect(html).toMatch(/value="failed"><button class="btn btn-ghost" type="submit">Reject<\/button>/);

    const done = await submit(id, 'success');
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${urls.success_url}?mandate_id=${id}&status=active`);
    expect((await c.get(id)).body).toMatchObject({ status: 'active', card: { brand: 'visa', last_four: '4242' } });
    expect(await c.events(id)).toEqual(['mandate.approved']);
    const after = await (await page(id)).text();
    expect(after).toContain('This mandate is <b>active</b>');
    expect(after).not.toContain('Approve</button>');
  });

  it('Reject sends the payer to cancel_url; without the URLs the payer lands on the page, which shows the result', async () => {
    const c = client(await stack.createMerchant());
    const withUrls = await c.create({ method: 'card', ...urls });
    const rejected = await submit(withUrls, 'failed');
    expect(rejected.headers.get('location')).toBe(`${urls.cancel_url}?mandate_id=${withUrls}&status=rejected`);
    expect((await c.get(withUrls)).body).toMatchObject({ status: 'rejected', failure_code: 'payer_rejected' });
    expect(await c.events(withUrls)).toEqual(['mandate.rejected']);

    const bare = await c.create({ method: 'card' });
    const landed = await submit(bare, 'failed');
    expect(landed.headers.get('location')).toBe(`${stack.baseUrl}/sandbox/mandate/${bare}`);
    expect(await (await page(bare)).text()).toContain('This mandate is <b>rejected</b>');
  });

  it('a mandate already decided keeps its status: the payer goes where that status says', async () => {
    const c = client(await stack.createMerchant());
    const id = await c.create({ method: 'card', ...urls });
    await c.simulate(id, { outcome: 'approve' });
    const late = await submit(id, 'failed');
    expect(late.headers.get('location')).toBe(`${urls.success_url}?mandate_id=${id}&status=active`);
    expect((await c.get(id)).body.status).toBe('active');
    expect(await c.events(id)).toEqual(['mandate.approved']);
  });

  it('404 for an unknown or a live mandate (GET and POST); 400 when the kind and the id disagree', async () => {
    const c = client(await stack.createMerchant());
    const id = await c.create({ method: 'card' });
    const unknown = `md_${'x'.repeat(22)}`;
    expect((await page(unknown)).status).toBe(404);
    expect((await submit(unknown, 'success')).status).toBe(404);
    // A live mandate (as the PSP flow stores it): the sandbox page does not serve it.
    const store = mandateDeps().mandates;
    const stored = (await store.get(id))!;
    const liveId = `md_live${id.slice(3)}`;
    const at = new Date().toISOString();
    await store.create({ mandate: { ...stored, mandate_id: liveId, livemode: true, sandbox_outcome: null }, events: [], now: at });
    const livePage = await page(liveId);
    expect(livePage.status).toBe(404);
    expect((await livePage.json()).error.code).toBe('MANDATE_NOT_FOUND');
    expect((await submit(liveId, 'success')).status).toBe(404);
    expect((await store.get(liveId))!.status).toBe('pending_approval');
    expect((await page(`pi_${'x'.repeat(22)}`)).status).toBe(400);
    expect((await page(id, '3ds')).status).toBe(400);
  });
});
