/**
 * The live connectors of this stage, built from its providers configuration (DESIGN.md section 8): each
 * provider's connector fills the method kinds it serves; a kind no configured provider serves stays absent
 * (METHOD_NOT_AVAILABLE). Rebuilt only when the document changes (a rotation), so OAuth tokens and TLS
 * connections are kept across invocations.
 */
import type { Connectors } from '../../application/providers';
import { apiPixConnectors, type ApiPixConnectors } from './api-pix/api-pix.connector';
import { stpConnectors, type StpConnectors } from './stp/stp.connector';
import { adyenConnectors, type AdyenConnectors } from './adyen/adyen.connector';
import { loadProvidersConfig, type ProvidersConfig } from './providers.config';

export interface LiveProviders {
  readonly connectors: Connectors | null;
  readonly apiPix: ApiPixConnectors | null;
  readonly stp: StpConnectors | null;
  readonly adyen: AdyenConnectors | null;
}

let cache: { key: string; providers: LiveProviders } | null = null;

export function buildLiveProviders(cfg: ProvidersConfig): LiveProviders {
  const apiPix = cfg.api_pix ? apiPixConnectors(cfg.api_pix) : null;
  const stp = cfg.stp ? stpConnectors(cfg.stp) : null;
  const adyen = cfg.adyen ? adyenConnectors(cfg.adyen) : null;
  const connectors: Connectors = {
    ...(apiPix ? { pix: apiPix.pix, pixRefunds: apiPix.pixRefunds, pixCallbacks: apiPix.pixCallbacks } : {}),
    ...(stp ? { speiPayouts: stp.speiPayouts, speiPayoutCallbacks: stp.speiPayoutCallbacks, speiDeposits: stp.speiDeposits } : {}),
    ...(adyen
      ? { heldCard: adyen.heldCard, cardNotifications: adyen.notifications, cardRefunds: adyen.refunds, heldVoucher: adyen.voucher }
      : {}),
  };
  return { connectors: Object.keys(connectors).length ? connectors : null, apiPix, stp, adyen };
}

/** The stage's live providers, from the configuration as it is now (cached by Powertools on AWS, read from the file locally). */
export async function liveProviders(): Promise<LiveProviders> {
  const cfg = await loadProvidersConfig();
  const key = JSON.stringify(cfg);
  if (cache?.key !== key) {
    cache?.providers.apiPix?.client.close();
    cache?.providers.stp?.client.close();
    cache?.providers.adyen?.client.close();
    cache = { key, providers: buildLiveProviders(cfg) };
  }
  return cache.providers;
}

export const liveConnectors = async () => (await liveProviders()).connectors;
