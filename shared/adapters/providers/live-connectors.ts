/**
 * Every configured provider's connectors built at once, from modules imported statically: the ops CLI and the
 * tests that drive a connector directly. Functions never import this module: they take their connectors from
 * liveProviders() (live-providers.ts), which loads a provider's module only when the document configures it.
 */
import { adyenConnectors } from './adyen/adyen.connector';
import { apiPixConnectors } from './api-pix/api-pix.connector';
import { dlocalLive } from './dlocal/dlocal.payout-port';
import { efiLive } from './efi/efi.payout-port';
import { assembleLiveProviders, type LiveProviders } from './live-providers';
import type { ProvidersConfig } from './providers.config';
import { stpConnectors } from './stp/stp.connector';
import { binancePayConnectors } from './binance-pay/binance-pay.connector';

export type { LiveProviders } from './live-providers';

export function buildLiveProviders(cfg: ProvidersConfig): LiveProviders {
  return assembleLiveProviders(
    cfg.api_pix ? apiPixConnectors(cfg.api_pix) : null,
    cfg.stp ? stpConnectors(cfg.stp) : null,
    cfg.adyen ? adyenConnectors(cfg.adyen) : null,
    cfg.dlocal ? dlocalLive(cfg.dlocal) : null,
    cfg.efi ? efiLive(cfg.efi) : null,
    cfg.binance_pay ? binancePayConnectors(cfg.binance_pay) : null,
  );
}
