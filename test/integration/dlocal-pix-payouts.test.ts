/**
 * Brazilian PIX payouts through dLocal payouts v3 (dlocal.payoutPort.pixPayouts) against the fake dLocal, over real
 * HTTPS: a payout by key created under our reference (or a later attempt's suffixed one) with a bearer token and read
 * back by it; a reference sent twice is dLocal's "External ID already used", answered by the read-back (never two
 * payouts); settled, rejected, cancelled and held in our words; each documented refusal in our failure codes, with
 * only the certain ones saying "not processed"; refused connections, a hang, a 5xx and a lost answer each
 * ProviderUnavailable; the read-back's not_found only on dLocal's own "not found"; signed notifications naming the
 * reference as sent; and no document number or key in an error message or a log line.
 */
import '../support/log-level-info';
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { ProviderUnavailable, type ProviderOrder, type ProviderRejected } from '../../shared/application/providers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { dlocalLive, type DlocalLive } from '../../shared/adapters/providers/dlocal/dlocal.payout-port';
import {
  createNeverSent,
  DlocalPayoutRefused,
  providerCodeOf,
  type DlocalPixPayoutConnector,
} from '../../shared/adapters/providers/dlocal/dlocal.pix-payouts';
import { payoutNotProcessed, type DlocalPixOrderRequest } from '../../shared/adapters/providers/dlocal/dlocal.pix-transformers';
import { externalIdOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';

const TOTAL_MS = 1000;
const CPF = '52998224725';
let fake: FakeDlocal;
let live: DlocalLive;
let pix: DlocalPixPayoutConnector;
let receiver: Server;
let receiverBase: string;
/** Every log line and error message of this file, and every key sent: checked last for keys and documents. */
const logged: string[] = [];
const keysUsed = new Set<string>([CPF]);
let spies: jest.SpyInstance[] = [];

const configOf = () =>
  parseProvidersConfig({ dlocal: { ...fake.dlocalConfig(), timeouts: { connect_ms: 1000, total_ms: TOTAL_MS } } }, 'test').dlocal!;

beforeAll(async () => {
  fake = await startFakeDlocal({ hangMs: 5_000 });
  live = dlocalLive(configOf());
  pix = live.payoutPort!.pixPayouts;
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const parsed = live.payoutPort!.pixNotifications.parse(req.headers, Buffer.concat(chunks).toString('utf8'));
      res.writeHead(parsed && 'forged' in parsed ? 401 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, parsed }));
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const addr = receiver.address();
  receiverBase = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
afterAll(async () => {
  live?.client.close();
  await fake?.close();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
});
beforeEach(() => {
  spies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    }),
  );
});
afterEach(() => {
  spies.forEach((s) => s.mockRestore());
  expect(fake.violations).toEqual([]);
});

const payoutId = () => `po_${randomBytes(16).toString('base64url')}`;
const newKey = () => {
  const key = `pix-${randomBytes(5).toString('hex')}@example.com.br`;
  keysUsed.add(key);
  return key;
};
const request = (over: Partial<DlocalPixOrderRequest> = {}): DlocalPixOrderRequest => ({
  payoutId: payoutId(),
  methodCode: 'svc-mt-5',
  amountMinor: 25_090,
  currency: 'BRL',
  beneficiaryName: 'João Pereira Lima',
  beneficiaryDocument: '529.982.247-25',
  documentType: 'CPF',
  instantTransferKey: newKey(),
  instantTransferType: 'email',
  bankAccount: null,
  concept: 'Repasse 42',
  callbackBaseUrl: receiverBase,
  ...over,
});
const prepared = (req: DlocalPixOrderRequest): ProviderOrder => {
  const p = pix.prepare(req);
  if ('invalid' in p) throw new Error(p.invalid);
  return p.order;
};
/** The error a promise fails with (its message kept for the last test). */
const failure = async (p: Promise<unknown>): Promise<Error> => {
  const e = await p.then(
    () => new Error('expected a failure'),
    (x: unknown) => x as Error,
  );
  logged.push(e.message);
  return e;
};

describe('dLocal PIX payouts through the connector', () => {
  it('a payout by key is created under our reference with a bearer token, read back pending, then settled', async () => {
    const req = request();
    const order = prepared(req);
    const ref = externalIdOf(req.payoutId);
    expect(order.reference).toBe(ref);
    expect(order.summary).toMatchObject({ document: '***725', pix_key_type: 'EMAIL', amount: 250.9, currency: 'BRL' });
    for (const secret of [CPF, req.instantTransferKey!]) expect(JSON.stringify(order)).not.toContain(secret);

    const sent = fake.requests.length;
    const r = await pix.register(order);
    const held = fake.payout(ref);
    expect(r).toEqual({ orderId: held?.id, state: { kind: 'pending', orderId: held?.id, held: false } });
    expect(held?.request).toEqual({
      external_id: ref,
      country: 'BR',
      payment_method_id: 'BANK_TRANSFER',
      amount: 250.9,
      currency: 'BRL',
      purpose: 'OTHER',
      flow_type: 'B2C',
      description: 'Repasse 42',
      notification_url: `${receiverBase}/providers/dlocal/payouts`,
      beneficiary: {
        first_name: 'João',
        last_name: 'Pereira Lima',
        document: { type: 'CPF', id: CPF },
        bank_account: { pix_key: req.instantTransferKey, pix_key_type: 'EMAIL' },
      },
    });
    const create = fake.requests.slice(sent).find((x) => x.path === '/payouts/v3');
    expect(create?.headers).toMatchObject({ authorization: expect.stringMatching(/^Bearer \S+$/), 'x-version': '3.0' });

    expect(await pix.get(ref)).toEqual({ kind: 'pending', orderId: held?.id, held: false });
    fake.setPayoutStatus(ref, 'PAID');
    expect(await pix.get(ref)).toMatchObject({ kind: 'settled', orderId: held?.id, at: expect.any(String) });
    expect(fake.payoutCreates(ref)).toBe(1);
  });

  it('a later attempt goes under its suffixed reference; each reference reads back its own payout', async () => {
    const req = request();
    const first = externalIdOf(req.payoutId);
    const second = `${first}a2`;
    const order = prepared({ ...req, reference: second });
    expect(order.reference).toBe(second);
    // A seal is bound to its reference: it cannot be sent under another.
    const e = await failure(pix.register({ reference: first, sealed: order.sealed }));
    expect(e).toBeInstanceOf(ProviderUnavailable);
    await pix.register(order);
    expect(fake.payout(second)?.request.external_id).toBe(second);
    expect(await pix.get(second)).toMatchObject({ kind: 'pending', orderId: fake.payout(second)?.id });
    expect(await pix.get(first)).toEqual({ kind: 'not_found' });
    expect([fake.payoutCreates(first), fake.payoutCreates(second)]).toEqual([0, 1]);
  });

  it('a reference sent twice is dLocal’s 5011, answered by reading the payout back: never two payouts', async () => {
    const order = prepared(request());
    const one = await pix.register(order);
    const again = await pix.register(order);
    expect(again).toEqual(one);
    expect(fake.payoutCreates(order.reference)).toBe(2);
    expect(
      fake.requests.filter((x) => x.path === '/payouts/v3' && (x.body as { external_id?: string }).external_id === order.reference),
    ).toHaveLength(2);
    // The state the read-back gives is the one the answer gives: held for review, then what dLocal holds.
    fake.setPayoutStatus(order.reference, 'ON_HOLD_BY_COMPLIANCE');
    expect(await pix.register(order)).toMatchObject({ orderId: fake.payout(order.reference)?.id, state: { kind: 'pending', held: true } });
  });

  it('an answer lost after dLocal made the payout (dropped or hung): unavailable, read back, resent only as the same payout', async () => {
    for (const lost of [{ dropAfter: true as const }, { hangAfter: true as const }]) {
      const order = prepared(request());
      fake.failNext('payouts', lost);
      const started = Date.now();
      const e = await failure(pix.register(order));
      expect([lost, e]).toEqual([lost, expect.any(ProviderUnavailable)]);
      expect(createNeverSent(e)).toBe(false);
      expect(Date.now() - started).toBeLessThan(TOTAL_MS + 1500);
      // dLocal made it: the read-back finds it, so nothing fails over; a resend is answered by it.
      const id = fake.payout(order.reference)?.id;
      expect(await pix.get(order.reference)).toMatchObject({ kind: 'pending', orderId: id });
      expect(await pix.register(order)).toMatchObject({ orderId: id });
      expect(fake.payoutCreates(order.reference)).toBe(2);
    }
  });

  it('settled, rejected with a reason, cancelled, held: each read back in our words', async () => {
    const cases: Array<[Parameters<FakeDlocal['setPayoutStatus']>[1], string | undefined, object]> = [
      ['DELIVERED', undefined, { kind: 'pending', held: false }],
      ['ON_HOLD', undefined, { kind: 'pending', held: true }],
      ['REJECTED', 'ERROR_ACCOUNT_INCORRECT', { kind: 'cancelled', failureCode: 'invalid_account' }],
      ['REJECTED', 'ERROR_BENEFICIARY_NAME_INCORRECT', { kind: 'cancelled', failureCode: 'invalid_beneficiary' }],
      ['REJECTED', undefined, { kind: 'cancelled', failureCode: 'rejected_by_provider' }],
      ['CANCELLED', undefined, { kind: 'cancelled', failureCode: 'cancelled_by_provider' }],
      ['PAID', undefined, { kind: 'settled' }],
    ];
    for (const [status, reason, state] of cases) {
      const order = prepared(request());
      await pix.register(order);
      fake.setPayoutStatus(order.reference, status, reason);
      expect([status, reason, await pix.get(order.reference)]).toEqual([
        status,
        reason,
        expect.objectContaining({ ...state, orderId: fake.payout(order.reference)?.id }),
      ]);
    }
  });

  it('each documented refusal of a create is our failure code; only those that certainly made nothing say not processed', async () => {
    const cases: Array<[number, number, string, boolean]> = [
      [5008, 400, 'limit_exceeded', false],
      [5012, 400, 'rejected_by_compliance', false],
      [5013, 400, 'rejected_by_compliance', false],
      [5015, 400, 'rejected_by_compliance', false],
      [3003, 400, 'invalid_account', false],
      [3000, 400, 'rejected_by_provider', false],
      [5014, 400, 'provider_balance_insufficient', true],
      [5007, 400, 'method_not_available', true],
      [514, 400, 'provider_balance_insufficient', true],
      [4001, 403, 'unavailable', true],
      [4002, 403, 'unavailable', true],
    ];
    for (const [code, status, ours, notProcessed] of cases) {
      const req = request();
      fake.refusePixKey(req.instantTransferKey!, { code, status });
      const order = prepared(req);
      const e = await failure(pix.register(order));
      if (ours === 'unavailable') expect([code, e]).toEqual([code, expect.any(ProviderUnavailable)]);
      else expect([code, e, (e as ProviderRejected).code]).toEqual([code, expect.any(DlocalPayoutRefused), ours]);
      expect([code, payoutNotProcessed(providerCodeOf(e))]).toEqual([code, notProcessed]);
      expect(fake.payoutCreates(order.reference)).toBe(1);
      expect(await pix.get(order.reference)).toEqual({ kind: 'not_found' });
    }
  });

  it('refused connections, a hang and a 5xx are ProviderUnavailable; a create is never sent twice by the client', async () => {
    const order = prepared(request());
    await fake.refuseConnections('closed');
    try {
      const refused = await failure(pix.register(order));
      expect(refused).toBeInstanceOf(ProviderUnavailable);
      expect((refused as ProviderUnavailable).reason).toBe('connection refused');
      expect(createNeverSent(refused)).toBe(true);
      expect(await failure(pix.get(order.reference))).toBeInstanceOf(ProviderUnavailable);
    } finally {
      await fake.refuseConnections(null);
    }
    expect(await pix.get(order.reference)).toEqual({ kind: 'not_found' });

    for (const fault of [{ hang: true as const }, { status: 503 }, { status: 500 }]) {
      const sent = fake.requests.length;
      fake.failNext('payouts', fault);
      const started = Date.now();
      const e = await failure(pix.register(order));
      expect([fault, e, createNeverSent(e)]).toEqual([fault, expect.any(ProviderUnavailable), false]);
      expect(Date.now() - started).toBeLessThan(TOTAL_MS + 1500);
      expect(fake.requests.slice(sent).filter((x) => x.path === '/payouts/v3')).toHaveLength(1);
      // The fault came before dLocal made anything: the read-back says so (a failed call may then go elsewhere).
      expect(await pix.get(order.reference)).toEqual({ kind: 'not_found' });
    }
    expect(fake.payoutCreates(order.reference)).toBe(0);
    await pix.register(order);
    expect(fake.payoutCreates(order.reference)).toBe(1);
  });

  it('a token that cannot be had means the create never left', async () => {
    const fresh = dlocalLive(configOf());
    try {
      const order = prepared(request());
      fake.failNext('token', { status: 500 });
      const e = await failure(fresh.payoutPort!.pixPayouts.register(order));
      expect(e).toBeInstanceOf(ProviderUnavailable);
      expect(createNeverSent(e)).toBe(true);
      expect(fake.payoutCreates(order.reference)).toBe(0);
    } finally {
      fresh.client.close();
    }
  });

  it('the read-back says not_found only on dLocal’s own “not found”; a read is retried once', async () => {
    const order = prepared(request());
    expect(await pix.get(order.reference)).toEqual({ kind: 'not_found' }); // the fake's 404 with 509
    fake.failNext('payout', { status: 400, code: 5009 });
    expect(await pix.get(order.reference)).toEqual({ kind: 'not_found' });
    // A 404 without dLocal's code (a proxy's, a wrong path) or another refusal says nothing about the payout.
    fake.failNext('payout', { status: 404 });
    expect(await failure(pix.get(order.reference))).toBeInstanceOf(ProviderUnavailable);
    fake.failNext('payout', { status: 403, code: 4001 });
    const creds = await failure(pix.get(order.reference));
    expect([creds, providerCodeOf(creds)]).toEqual([expect.any(ProviderUnavailable), 4001]);
    await pix.register(order);
    fake.failNext('payout', { status: 502 });
    expect(await pix.get(order.reference)).toMatchObject({ kind: 'pending' });
    fake.failNext('payout', { status: 502 }, 2);
    expect(await failure(pix.get(order.reference))).toBeInstanceOf(ProviderUnavailable);
    const requests = fake.requests.length;
    expect(await failure(pix.get('PAYOUT-1'))).toBeInstanceOf(ProviderUnavailable);
    expect(fake.requests.length).toBe(requests);
  });

  it('signed notifications name the payout by the reference as sent; a forged one is refused', async () => {
    const req = request();
    const ref = `${externalIdOf(req.payoutId)}a3`;
    await pix.register(prepared({ ...req, reference: ref }));
    fake.setPayoutStatus(ref, 'PAID');
    const n = JSON.parse((await fake.notifyPayout(ref)).body) as { path: string; parsed: unknown };
    expect(n).toEqual({
      path: '/providers/dlocal/payouts',
      parsed: { item: { reference: ref, orderId: fake.payout(ref)?.id, claimed: 'settled' } },
    });
    expect(live.payoutPort!.pixNotifications.payoutIdOf(ref)).toBe(req.payoutId);
    const forged = await fake.notifyPayout(ref, { sign: 'forged' });
    expect([forged.status, JSON.parse(forged.body)]).toEqual([401, expect.objectContaining({ parsed: { forged: true } })]);
    expect(JSON.parse((await fake.notifyPayout(ref, { status: 'REJECTED', sign: 'none' })).body)).toMatchObject({
      parsed: { item: { reference: ref, claimed: 'cancelled' } },
    });
  });

  it('no document number or PIX key in any error message or log line of this file', () => {
    expect(logged.some((l) => l.includes('dLocal refused a PIX payout'))).toBe(true);
    for (const secret of keysUsed) expect(logged.filter((l) => l.includes(secret))).toEqual([]);
  });
});
