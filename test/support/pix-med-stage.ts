/**
 * The live stage of the MED suites: the fake API Pix PSP (where the Pix is received, its Pix webhook registered as
 * `providers api-pix register-webhook` registers it) and the fake Efí (whose infractions the readPixDisputes job reads),
 * with short provider timeouts and the merchant's webhook receiver.
 */
import { randomBytes } from 'node:crypto';
import { startFakeEfi, type FakeEfi } from './fake-efi';
import { startFakePsp, type FakePsp } from './fake-psp';
import { startLiveStage, type LiveMerchant, type LiveStage } from './live-stage';

export interface PixMedStage {
  readonly psp: FakePsp;
  readonly efi: FakeEfi;
  readonly live: LiveStage;
  readonly merchant: LiveMerchant;
  stop(): Promise<void>;
}

export async function startPixMedStage(merchantName: string): Promise<PixMedStage> {
  const token = randomBytes(24).toString('base64url');
  const [psp, efi] = await Promise.all([startFakePsp(), startFakeEfi()]);
  const timeouts = { connect_ms: 1000, total_ms: 3000 };
  const live = await startLiveStage(
    { api_pix: { ...psp.apiPixConfig(token), timeouts }, efi: { ...efi.efiConfig(randomBytes(24).toString('base64url')), timeouts } },
    { merchantName, receiver: true },
  );
  // The PSP posts to <base>/providers/api-pix/<token>/pix, as `providers api-pix register-webhook` registers it.
  const { buildLiveProviders } = await import('../../shared/adapters/providers/live-connectors');
  const { parseProvidersConfig } = await import('../../shared/adapters/providers/providers.config');
  const ops = buildLiveProviders(parseProvidersConfig({ api_pix: psp.apiPixConfig(token) }, 'test'));
  await ops.apiPix!.webhooks.register(`${live.stack.baseUrl}/providers/api-pix/${token}`);
  ops.apiPix!.client.close();
  return {
    psp,
    efi,
    live,
    merchant: live.merchant,
    async stop() {
      await live.stop();
      await psp.close();
      await efi.close();
    },
  };
}
