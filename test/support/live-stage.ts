/**
 * The local live stage for an integration test: the providers document written where the functions read it, the
 * stack on the real local engines, a merchant with a live key (and, with `receiver`, its webhooks delivered to a
 * loopback receiver). `stop()` undoes all of it, the environment included.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
