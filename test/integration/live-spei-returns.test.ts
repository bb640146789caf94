/**
 * Live SPEI payouts after they complete (issue 24, gaps 2, 4 and 7), over real HTTP on the local engines with
 * the fake STP: a payout settled and later returned at STP without any callback is found by the resume job's
 * return check (refunded, credited back once, payout.refunded); a watched payout is read back less often and
 * leaves the work index when its window ends; a state change naming another STP order id moves nothing; and the
 * stored payout item never holds the beneficiary's full CLABE or CURP (only masked, the exact order sealed and
 * dropped once the payout leaves processing), while a resend is still the same order byte for byte.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
import { resumeSettlements } from '../../shared/application/payouts';
import { settlementDeps, settlementGraceSeconds } from '../../shared/wiring';
import { claveRastreoOf } from '../../shared/adapters/providers/stp/stp.transformers';
import { startFakeStp, type FakeStp } from '../support/fake-stp';
import { verifyWebhook } from '../support/merchant-verify';
import type { Receiver } from '../support/receiver';
import { callAs, balanceMinorOf, fundLive, startLiveStage, type LiveMerchant, type LiveStage } from '../support/live-stage';
import type { TestStack } from '../support/test-stack';
import { ledger } from '../support/payments';

const TOKEN = randomBytes(24).toString('base64url');
const CLABE = '072691004495711499';
const CURP = 'GODE561231HDFRRN00';
/**
 * A return-watch window shorter than the first back-off step (60 s), so that every check falls on its end, and long
 * enough for a loaded machine to make the first check inside it; the test moves the clock past its end.
 */
const WATCH_SECONDS = 50;
let stp: FakeStp;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;
let live: LiveStage;

beforeAll(async () => {
  stp = await startFakeStp({ hangMs: 10_000 });
  const cfg = { ...stp.stpConfig(TOKEN), return_watch_seconds: WATCH_SECONDS, timeouts: { connect_ms: 1000, total_ms: 1500 } };
  live = await startLiveStage({ stp: cfg }, { merchantName: 'Tienda en Vivo', receiver: true });
  ({ stack, receiver, merchant } = live);
  stp.setCallbackBase(`${stack.baseUrl}/providers/stp/${TOKEN}`);
  await fundLive(merchant.merchantId, 'MXN', 10_000_000);
});

afterEach(() => {
  expect(stp.violations).toEqual([]);
});

afterAll(async () => {
  await live?.stop();
  await stp?.close();
});

const call = (method: string, path: string, body?: unknown) => callAs(stack, merchant.apiKey, method, path, body);
const payout = (amount: number) =>
  call('POST', '/api/v1/payout', {
    method_code: 'svc-mt-30',
    amount,
    currency: 'MXN',
    description: 'Pago proveedor 881',
    beneficiary: {
      name: 'María López Pérez',
      document: CURP,
      document_type: 'CURP',
      instant_transfer_key: CLABE,
      instant_transfer_type: 'clabe',
    },
  });
const get = async (id: string) => (await call('GET', `/api/v1/payout/${id}`)).body;
/** The payout item exactly as DynamoDB holds it (keys and index attributes included). */
const rawItem = async (id: string) =>
  (
    await documentClient().send(
      new GetCommand({ TableName: config.tableName, Key: { PK: `PAYOUT#${id}`, SK: 'PAYOUT' }, ConsistentRead: true }),
    )
  ).Item as Record<string, any>;
const balance = () => balanceMinorOf(stack, merchant.apiKey, 'MXN');
async function ledgerMatches() {
  const entries = await ledger(merchant, 'MXN', 'live');
  expect(entries.reduce((s, e) => s + Number(e.amount_minor), 0)).toBe(await balance());
  return entries;
}
const hooksFor = (id: string, event: string) => receiver.received.filter((r) => r.body?.payout_id === id && r.body?.event === event);
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
/** The resume job as if it ran `ahead` seconds from now (past the settlement grace and the first return check). */
const resume = (ahead = settlementGraceSeconds() + 5) =>
  resumeSettlements(settlementDeps(), new Date(Date.now() + ahead * 1000), settlementGraceSeconds());
const queries = (clave: string) =>
  stp.requests.filter((r) => r.path.endsWith('/consOrdEnvRastreo') && (r.body as { claveRastreo?: string }).claveRastreo === clave).length;
/** Moves the clock the service reads (Date) `ms` ahead until restored; timers keep real time. */
function clockAhead(ms: number): () => void {
  const RealDate = globalThis.Date;
  class Ahead extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + ms);
      else super(...(args as [string]));
    }
    static override now() {
      return RealDate.now() + ms;
    }
  }
  globalThis.Date = Ahead as DateConstructor;
  return () => {
    globalThis.Date = RealDate;
  };
}
/** Every text of an item, at any depth. */
const texts = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v as object).flatMap(texts) : [];

describe('live SPEI payouts after they complete', () => {
  it('settled by callback, then returned at STP with no callback: the return check refunds it once, with payout.refunded', async () => {
    const before = await balance();
    const id = (await payout(321.09)).body.payout_id as string;
    const clave = claveRastreoOf(id);
    await stp.settle(clave);
    expect((await get(id)).status).toBe('completed');
    // Completed, it stays on the work index (its own partitions) for the return watch; not as money in flight.
    const watched = await rawItem(id);
    expect(watched.return_watch).toMatchObject({ checks: 0, until: expect.any(String), next_check_at: expect.any(String) });
    expect(String(watched.GSI2PK)).toMatch(/^RETWATCH#\d$/);
    expect(String(watched.GSI2SK)).toBe(`${watched.return_watch.next_check_at}#${id}`);

    await stp.returnOrder(clave, { callback: false });
    // Before its first check is due, the job does not read it.
    const asked = queries(clave);
    await resume(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(queries(clave)).toBe(asked);
    expect((await get(id)).status).toBe('completed');

    const r = await resume();
    expect(r.returnChecks).toBeGreaterThanOrEqual(1);
    await until(
      () => get(id),
      (p) => p.status === 'refunded',
      'refunded',
    );
    expect(await get(id)).toMatchObject({ status: 'refunded', failure_reason: 'returned_by_beneficiary_bank' });
    const [hook] = await receiver.waitFor(1, 60_000, (h) => h.body?.event === 'payout.refunded' && h.body?.payout_id === id);
    expect(verifyWebhook(hook!.rawBody, hook!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
    expect(await balance()).toBe(before);
    // Off the index once refunded; the job again, and STP's late callback: still one credit, one webhook.
    const done = await rawItem(id);
    expect(done.GSI2PK).toBeUndefined();
    expect(done.return_watch).toBeNull();
    await resume();
    const order = stp.order(clave)!;
    await stp.sendEstado({ id: order.id, empresa: stp.empresa, folioOrigen: clave, estado: 'DEVOLUCION', causaDevolucion: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect(await balance()).toBe(before);
    const credits = (await ledgerMatches()).filter((e) => e.object_id === id).map((e) => Number(e.amount_minor));
    expect(credits.sort((a, b) => a - b)).toEqual([-32109, 32109]);
    expect(hooksFor(id, 'payout.refunded')).toHaveLength(1);
  });

  it('a watched payout STP still shows settled is checked again later, and leaves the index when its window ends', async () => {
    const before = await balance();
    const id = (await payout(45)).body.payout_id as string;
    const clave = claveRastreoOf(id);
    await stp.settle(clave, { callback: false });
    await resume();
    await until(
      () => get(id),
      (p) => p.status === 'completed',
      'completed',
    );
    const first = (await rawItem(id)).return_watch;

    // The first return check: STP shows it settled; the watch moves on (one check made), still on the index.
    await resume();
    const second = await until(
      () => rawItem(id),
      (i) => i.return_watch?.checks === 1,
      'the first return check',
    );
    // One query found it settled (completion), one more was the return check (it may run as soon as the watch starts).
    expect(queries(clave)).toBeGreaterThanOrEqual(2);
    // A window shorter than the back-off: every check falls on its end (the back-off itself: payout-return-watch.test.ts).
    expect(first.next_check_at).toBe(first.until);
    expect(second.return_watch.next_check_at).toBe(second.return_watch.until);
    expect(String(second.GSI2PK)).toMatch(/^RETWATCH#/);

    // Past the window (the clock moved past its end, not waited for): the next check ends the watch (off the
    // index), and a return after it is not looked for.
    const restore = clockAhead(Date.parse(second.return_watch.until) - Date.now() + 1000);
    try {
      await resume();
      const ended = await until(
        () => rawItem(id),
        (i) => i.return_watch === null,
        'the watch ended',
      );
      expect(ended.GSI2PK).toBeUndefined();
      expect(ended.GSI2SK).toBeUndefined();
      await stp.returnOrder(clave, { callback: false });
      const after = queries(clave);
      expect((await resume()).returnChecks).toBe(0);
      await new Promise((r) => setTimeout(r, 300));
      expect(queries(clave)).toBe(after);
      expect((await get(id)).status).toBe('completed');
      expect(await balance()).toBe(before - 4500);
      await ledgerMatches();
    } finally {
      restore();
    }
  });

  it('keeps STP’s order id from registration: a state change naming another id moves nothing', async () => {
    const before = await balance();
    const id = (await payout(60)).body.payout_id as string;
    const clave = claveRastreoOf(id);
    const order = stp.order(clave)!;
    expect((await rawItem(id)).provider.details.order_id).toBe(String(order.id));
    await stp.settle(clave, { callback: false });
    const forged = await stp.sendEstado({ id: order.id + 1, empresa: stp.empresa, folioOrigen: clave, estado: 'LIQUIDACION' });
    expect(forged).toEqual({ status: 200, body: { mensaje: 'recibido' } });
    expect((await get(id)).status).toBe('processing');
    expect(hooksFor(id, 'payout.completed')).toHaveLength(0);
    // The right id: applied.
    expect((await stp.sendEstado({ id: order.id, empresa: stp.empresa, folioOrigen: clave, estado: 'LIQUIDACION' })).status).toBe(200);
    expect((await get(id)).status).toBe('completed');
    expect(await balance()).toBe(before - 6000);
    await ledgerMatches();
  });

  it('the stored payout never holds the full CLABE or CURP; a resend after a lost registration is the same order', async () => {
    stp.failNext('registra', { hang: true });
    const r = await payout(80);
    expect(r.status).toBe(502);
    const id = /po_[A-Za-z0-9_-]{22}/.exec(r.body.error.message as string)![0];
    const clave = claveRastreoOf(id);
    const held = await rawItem(id);
    const stored = texts(held).join('\n');
    expect(stored).not.toContain(CLABE);
    expect(stored).not.toContain(CURP);
    expect(held.provider.order).toMatchObject({ cuentaBeneficiario: '**************1499', rfcCurpBeneficiario: '**************RN00' });
    expect(held.provider.sealed_order).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);

    // The resume job finds no order and sends the sealed one: exactly the order the first send carried.
    const firstSend = stp.requests.filter(
      (q) => q.path.endsWith('/registra') && (q.body as { claveRastreo: string }).claveRastreo === clave,
    );
    await resume();
    await until(
      async () => stp.order(clave),
      (o) => o !== undefined,
      'the order sent again',
    );
    const sends = stp.requests.filter((q) => q.path.endsWith('/registra') && (q.body as { claveRastreo: string }).claveRastreo === clave);
    expect(sends).toHaveLength(firstSend.length + 1);
    expect(JSON.stringify(sends.at(-1)!.body)).toBe(JSON.stringify(firstSend[0]!.body));
    expect(stp.order(clave)?.request).toMatchObject({ cuentaBeneficiario: CLABE, rfcCurpBeneficiario: CURP });

    // Once final the sealed order is gone too; still nothing whole in the item.
    await stp.settle(clave);
    const done = await rawItem(id);
    expect(done.status).toBe('completed');
    expect(done.provider.sealed_order).toBeNull();
    expect(texts(done).join('\n')).not.toContain(CLABE);
    expect(texts(done).join('\n')).not.toContain(CURP);
  });
});
