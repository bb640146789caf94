/** The live stage with only Adyen configured (the fake), and one live merchant: the card tests' set-up. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAdyen, type FakeAdyen } from './fake-adyen';
import { startTestStack, type TestStack } from './test-stack';

export interface AdyenLiveStage {
  readonly adyen: FakeAdyen;
  readonly stack: TestStack;
  /** The merchant's live key. */
  readonly apiKey: string;
  stop(): Promise<void>;
}

export async function startAdyenLiveStage(merchantName: string): Promise<AdyenLiveStage> {
  const adyen = await startFakeAdyen();
  const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
  writeFileSync(file, JSON.stringify({ adyen: adyen.adyenConfig() }));
  Object.assign(process.env, { STAGE: 'live', PROVIDERS_FILE: file });
  const stack = await startTestStack();
  const m = await stack.admin.createMerchant({ name: merchantName });
  const apiKey = (await stack.admin.createKey(m.merchant.merchant_id, 'live')).secret;
  return {
    adyen,
    stack,
    apiKey,
    async stop() {
      await stack.stop();
      await adyen.close();
      process.env.STAGE = 'sandbox';
      delete process.env.PROVIDERS_FILE;
    },
  };
}
