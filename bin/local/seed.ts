/** Seeds (or reuses) the sandbox merchant of the local stack and records how to reach it. */
import { existsSync, readFileSync } from 'node:fs';
import { randomSecrets } from '../../shared/adapters/crypto';
import { adminService, repositories } from '../../shared/wiring';

export interface SandboxInfo {
  base_url: string;
  merchant_id: string;
  api_key: string;
  webhook_secret: string;
}

export const SANDBOX_MERCHANT_NAME = 'Sandbox Merchant';
export const LIVE_MERCHANT_NAME = 'Live Merchant (local)';

/**
 * The file's merchant and key when they still exist in the table (persistent restarts); else a new merchant,
 * with a sk_test_ key (sandbox) or a sk_live_ key (the local live stage).
 */
export async function seedSandboxMerchant(
  file: string,
  baseUrl: string,
  mode: 'test' | 'live' = 'test',
): Promise<SandboxInfo & { reused: boolean }> {
  if (existsSync(file)) {
    try {
      const prev = JSON.parse(readFileSync(file, 'utf8')) as SandboxInfo;
      const key = await repositories.apiKeys.findByHash(randomSecrets.hashKey(prev.api_key));
      const secrets = await repositories.merchants.getWebhookSecrets(prev.merchant_id);
      if (key?.status === 'active' && key.merchant_id === prev.merchant_id && secrets) {
        return { base_url: baseUrl, merchant_id: prev.merchant_id, api_key: prev.api_key, webhook_secret: secrets.current, reused: true };
      }
    } catch {
      // unreadable or stale: seed a new merchant
    }
  }
  const admin = adminService();
  const created = await admin.createMerchant({ name: mode === 'live' ? LIVE_MERCHANT_NAME : SANDBOX_MERCHANT_NAME });
  const key = mode === 'live' ? await admin.createKey(created.merchant.merchant_id, 'live') : created.apiKey;
  return {
    base_url: baseUrl,
    merchant_id: created.merchant.merchant_id,
    api_key: key.secret,
    webhook_secret: created.webhookSecret,
    reused: false,
  };
}
