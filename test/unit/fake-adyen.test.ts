/**
 * The fake Adyen against our real connector over HTTPS (issue 23, slice 2): each scripted answer, the
 * schema check of every request, idempotency by key, faults, and notifications signed with the real algorithm.
 */
import { randomBytes } from 'node:crypto';
import { ProviderUnavailable, type HeldCardRequest } from '../../shared/application/providers';
import { adyenConnectors } from '../../shared/adapters/providers/adyen/adyen.connector';
import { hmacValid } from '../../shared/adapters/providers/adyen/adyen.hmac';
import { paymentReferenceOf } from '../../shared/adapters/providers/adyen/adyen.transformers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { startFakeAdyen, type FakeAdyen } from '../support/fake-adyen';

let adyen: FakeAdyen;
beforeAll(async () => {
  adyen = await startFakeAdyen({ hangMs: 5_000 });
});
afterAll(() => adyen.close());

/** Generous timeouts (a loaded machine answers a local fake slowly); the hang case sets a short one of its own. */
const connectors = (over: Record<string, unknown> = {}) =>
  adyenConnectors(
    parseProvidersConfig({ adyen: adyen.adyenConfig({ timeouts: { connect_ms: 3_000, total_ms: 4_000 }, ...over }) }, 'test').adyen!,
  );

const request = (): HeldCardRequest => ({
  paymentId: `pi_${randomBytes(16).toString('base64url')}`,
  amountMinor: 5000,
  currency: 'BRL',
  country: 'BRA',
  card: { number: '4111111145551142', holder_name: 'Maria Silva', expiry_month: '03', expiry_year: '2030', cvv: '737' },
  installments: 1,
  shopper: { reference: 'merchant-cus', email: 'maria@example.com' },
  returnUrl: 'http://127.0.0.1:1/providers/adyen/return/x',
});

afterEach(() => expect(adyen.violations).toEqual([]));

describe('fake Adyen', () => {
  it('answers Authorised, Refused per reason, Pending, and the same answer for a repeated key', async () => {
    const c = connectors();
    const req = request();
    const first = await c.heldCard.authorize(req);
    expect(first).toMatchObject({ kind: 'approved' });
    await expect(c.heldCard.authorize(req)).resolves.toEqual(first);
    adyen.nextCard({ resultCode: 'Refused', refusalReasonCode: '12' });
    await expect(c.heldCard.authorize(request())).resolves.toMatchObject({ kind: 'declined', code: 'INSUFFICIENT_FUNDS' });
    adyen.nextCard({ resultCode: 'Pending' });
    await expect(c.heldCard.authorize(request())).resolves.toMatchObject({ kind: 'pending' });
    c.client.close();
  });

  it('RedirectShopper hands an action; the details call with the page’s redirectResult completes it', async () => {
    const c = connectors();
    const req = request();
    adyen.nextCard({ resultCode: 'RedirectShopper' });
    const o = await c.heldCard.authorize(req);
    expect(o).toMatchObject({ kind: 'redirect', redirect: { method: 'GET', url: expect.stringContaining('/hpp/3ds/') } });
    const ok = adyen.authenticate(paymentReferenceOf(req.paymentId), true);
    await expect(c.heldCard.completeRedirect({ paymentId: req.paymentId, redirectResult: ok })).resolves.toMatchObject({
      kind: 'approved',
    });
    const other = request();
    adyen.nextCard({ resultCode: 'ChallengeShopper' });
    await c.heldCard.authorize(other);
    const no = adyen.authenticate(paymentReferenceOf(other.paymentId), false);
    await expect(c.heldCard.completeRedirect({ paymentId: other.paymentId, redirectResult: no })).resolves.toMatchObject({
      kind: 'declined',
      code: 'AUTHENTICATION_FAILED',
    });
    c.client.close();
  });

  it('a 500, a hang and a wrong API key are ProviderUnavailable; the technical cancel is recorded', async () => {
    const c = connectors();
    adyen.failNext('payments', { status: 500 });
    await expect(c.heldCard.authorize(request())).rejects.toBeInstanceOf(ProviderUnavailable);
    adyen.failNext('payments', { hang: true });
    const impatient = connectors({ timeouts: { connect_ms: 500, total_ms: 800 } });
    await expect(impatient.heldCard.authorize(request())).rejects.toBeInstanceOf(ProviderUnavailable);
    impatient.client.close();
    const wrong = connectors({ api_key: 'AQE-wrong' });
    await expect(wrong.heldCard.authorize(request())).rejects.toThrow(/API key/);
    const req = request();
    await c.heldCard.cancelByReference(req.paymentId);
    expect(adyen.cancels).toContainEqual(expect.objectContaining({ paymentReference: paymentReferenceOf(req.paymentId) }));
    c.client.close();
    wrong.client.close();
  });

  it('signs notification items with the real algorithm, or forges them on demand', () => {
    const ref = paymentReferenceOf(request().paymentId);
    expect(hmacValid(adyen.item({ eventCode: 'AUTHORISATION', merchantReference: ref }), adyen.hmacKeyHex)).toBe(true);
    expect(hmacValid(adyen.item({ eventCode: 'AUTHORISATION', merchantReference: ref }, 'forged'), adyen.hmacKeyHex)).toBe(false);
    expect(hmacValid(adyen.item({ eventCode: 'AUTHORISATION', merchantReference: ref }, 'none'), adyen.hmacKeyHex)).toBe(false);
  });
});
