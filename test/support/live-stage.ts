/**
 * The local live stage for an integration test: the providers document written where the functions read it, the
 * stack on the real local engines, a merchant with a live key (and, with `receiver`, its webhooks delivered to a
 * loopback receiver). `stop()` undoes all of it, the environment included.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resumeSettlements } from '../../shared/application/payouts';
import { payoutDeps, settlementDeps, settlementGraceSeconds } from '../../shared/wiring';
import { ledger } from './payments';
import { startReceiver, type Receiver } from './receiver';
import { startTestStack, type TestStack } from './test-stack';

export interface LiveMerchant {
  readonly merchantId: string;
  readonly apiKey: string;
  readonly webhookSecret: string;
}

export interface LiveStage {
  readonly stack: TestStack;
  readonly merchant: LiveMerchant;
  /** Present when asked for: the merchant's notification_url. */
  readonly receiver: Receiver;
  /** Writes a new providers document (the functions read it again within their cache's life). */
  writeProviders(providers: Record<string, unknown>): void;
  stop(): Promise<void>;
}

export async function startLiveStage(
  providers: Record<string, unknown>,
  opts: { merchantName: string; receiver?: boolean; workers?: boolean },
): Promise<LiveStage> {
  const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
  const writeProviders = (p: Record<string, unknown>) => writeFileSync(file, JSON.stringify(p));
  writeProviders(providers);
  Object.assign(process.env, { STAGE: 'live', PROVIDERS_FILE: file, WEBHOOK_ALLOW_LOOPBACK: 'true' });
  const stack = await startTestStack({ workers: opts.workers ?? true });
  const receiver = opts.receiver ? await startReceiver() : (undefined as unknown as Receiver);
  const created = await stack.admin.createMerchant({ name: opts.merchantName, ...(receiver ? { notification_url: receiver.url } : {}) });
  const key = await stack.admin.createKey(created.merchant.merchant_id, 'live');
  return {
    stack,
    receiver,
    merchant: { merchantId: created.merchant.merchant_id, apiKey: key.secret, webhookSecret: created.webhookSecret },
    writeProviders,
    async stop() {
      await receiver?.stop();
      await stack.stop();
      process.env.STAGE = 'sandbox';
      delete process.env.PROVIDERS_FILE;
    },
  };
}

/** Everything the service logs while a test file runs (Powertools writes JSON lines to stdout, errors to stderr). */
export function captureLogs(): { readonly lines: string[]; restore(): void } {
  const lines: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }),
  );
  return { lines, restore: () => spies.forEach((s) => s.mockRestore()) };
}

/** A merchant's available balance in one currency, in minor units, as GET /api/v1/balance answers it. */
/** A JSON request to the API as the merchant: the live suites' `call(method, path, body)`. */
export const callAs = (stack: TestStack, apiKey: string, method: string, path: string, body?: unknown) =>
  stack.request(path, {
    method,
    apiKey,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Reads until `ok` holds (every 50 ms, up to 15 s): what the live suites wait on instead of sleeping. */
export async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const end = Date.now() + 15_000;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The settlement resume job run as if its grace had passed for everything in flight. */
export const resumeSettlementsNow = () => {
  const grace = settlementGraceSeconds();
  return resumeSettlements(settlementDeps(), new Date(Date.now() + (grace + 5) * 1000), grace);
};

export async function balanceMinorOf(stack: TestStack, apiKey: string, currency: string): Promise<number> {
  const r = await stack.request('/api/v1/balance', { apiKey });
  const b = (r.body.balances as Array<{ currency: string; available: number }>).find((x) => x.currency === currency);
  return Math.round((b?.available ?? 0) * 100);
}

/** The live ledger's sum equals the balance the merchant reads (credits are folded from the stream: polled briefly). */
export async function expectLedgerEqualsBalance(stack: TestStack, m: { merchantId: string; apiKey: string }, currency: string) {
  let [sum, balance] = [0, 0];
  for (let i = 0; i < 50; i++) {
    sum = (await ledger(m, currency, 'live')).reduce((s, e) => s + Number(e.amount_minor), 0);
    balance = await balanceMinorOf(stack, m.apiKey, currency);
    if (sum === balance) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect([currency, sum]).toEqual([currency, balance]);
}

/** Funds a merchant's live balance directly (a live balance is otherwise funded by pay-ins). */
export async function fundLive(merchantId: string, currency: string, amountMinor: number): Promise<void> {
  await payoutDeps().store.topUp({
    merchantId,
    livemode: true,
    currency,
    amountMinor,
    entryId: `le_${randomBytes(16).toString('base64url')}`,
    reason: 'test_top_up',
    now: new Date().toISOString(),
  });
}
