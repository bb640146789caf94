/**
 * The live connectors of this stage, built from its providers configuration (DESIGN.md section 8): each
 * provider's connector fills the method kinds it serves; a kind no configured provider serves stays absent
 * (METHOD_NOT_AVAILABLE). Rebuilt only when the document changes (a rotation), so OAuth tokens and TLS
 * connections are kept across invocations.
 *
 * A function loads a provider's connector only when the document configures it (issue 31): each configured
 * provider's module is imported with `await import()`, which the deployed bundle keeps in a chunk of its own
 * (lib/bundling.ts splits), so no function carries a provider at its import and a rail a stage does not
 * configure is never loaded. This module must import no connector statically (only their types): esbuild
 * keeps a module in the entry's chunks when any static import reaches it, used or not. The ops CLI and tests
 * build every configured provider at once with buildLiveProviders (live-connectors.ts).
 */
import type {
  CardRail,
  Connectors,
  MerchantRouting,
  PayoutConnector,
  PixRail,
  SignedPayoutNotifications,
} from '../../application/providers';
import type { CountryCode } from '../../domain/geo';
import { isRoutingKind, routeFor, type Routing } from './routing';
import type { AdyenConnectors } from './adyen/adyen.connector';
import type { ApiPixConnectors } from './api-pix/api-pix.connector';
import type { DlocalLive } from './dlocal/dlocal.payout-port';
import type { EfiLive } from './efi/efi.payout-port';
import type { StpConnectors } from './stp/stp.connector';
import type { BinancePayConnectors } from './binance-pay/binance-pay.connector';
import type { ProvidersConfig } from './providers.config';

export interface LiveProviders {
  readonly connectors: Connectors | null;
  readonly apiPix: ApiPixConnectors | null;
  readonly stp: StpConnectors | null;
  readonly adyen: AdyenConnectors | null;
  readonly dlocal: DlocalLive | null;
  readonly efi: EfiLive | null;
  readonly binancePay: BinancePayConnectors | null;
}

/** Each configured provider's connectors, in one object of the method kinds they serve. */
export function assembleLiveProviders(
  apiPix: ApiPixConnectors | null,
  stp: StpConnectors | null,
  adyen: AdyenConnectors | null,
  dlocal: DlocalLive | null = null,
  efi: EfiLive | null = null,
  binancePay: BinancePayConnectors | null = null,
  routing?: Routing,
): LiveProviders {
  // Live PIX pay-ins: every PSP that serves them, in the document's fixed order (api_pix, then efi, then dLocal's Pix:
  // last, so a stage that has an API Pix PSP keeps it first when no routing rule applies).
  const pixRails: PixRail[] = [
    ...[apiPix, efi?.payIns ?? null].flatMap((p) =>
      p ? [{ charges: p.pix as PixRail['charges'], refunds: p.pixRefunds, callbacks: p.pixCallbacks }] : [],
    ),
    ...(dlocal ? [dlocal.pix] : []),
  ];
  // Live cards: every provider that serves them, in the document's fixed order (adyen, then dlocal). dLocal's serves
  // only the payments a routing rule sends to it (never the default card provider: a stage that configures dLocal
  // for its local methods does not start taking cards through it); its notifications come to its payments route,
  // its chargebacks to a route of their own.
  const cardRails: CardRail[] = [
    ...(adyen ? [{ cards: adyen.heldCard, refunds: adyen.refunds, notifications: adyen.notifications }] : []),
    ...(dlocal ? [{ cards: dlocal.cards, refunds: dlocal.refunds, chargebacks: dlocal.chargebacks, routedOnly: true }] : []),
  ];
  const pixPayoutRails: PayoutConnector[] = [efi?.payouts ?? null, dlocal?.payoutPort?.pixPayouts ?? null].flatMap((p) => (p ? [p] : []));
  const connectors: Connectors = {
    ...(pixRails.length ? { pixRails } : {}),
    ...(cardRails.length ? { cardRails } : {}),
    ...(stp ? { speiPayouts: stp.speiPayouts, speiPayoutCallbacks: stp.speiPayoutCallbacks, speiDeposits: stp.speiDeposits } : {}),
    // Adyen: OXXO and boleto vouchers, cards stored for card mandates (DESIGN.md 9.3), and chargebacks defended
    // through its Disputes API (DESIGN.md 9.4).
    ...(adyen ? { heldVoucher: adyen.voucher, storedCards: adyen.storedCards, cardDisputes: adyen.disputes } : {}),
    ...(dlocal ? { heldLocal: dlocal.payments, localNotifications: dlocal.notifications, localRefunds: dlocal.refunds } : {}),
    // Efí: the infractions (MED) against Pix received and their defense, and PIX payouts with their send callbacks.
    ...(efi
      ? { pixDisputes: efi.pixDisputes, pixInfractionDefense: efi.pixInfractionDefense, pixPayoutCallbacks: efi.payoutCallbacks }
      : {}),
    // PIX payouts: every provider that sends them, in the document's order (efi, then dLocal's payouts v3).
    ...(pixPayoutRails.length ? { pixPayouts: pixPayoutRails[0], pixPayoutRails } : {}),
    // dLocal payouts v3 (only with the document's dlocal.payouts block): bank transfers, and the notifications of
    // both its bank and its PIX payouts (one route: a PIX payout's suffixed reference is read too).
    ...(dlocal?.payoutPort
      ? {
          bankPayouts: dlocal.payoutPort.payouts,
          bankPayoutNotifications: {
            parse: (h: Parameters<SignedPayoutNotifications['parse']>[0], body: string) => dlocal.payoutPort!.notifications.parse(h, body),
            payoutIdOf: (r: string) => dlocal.payoutPort!.notifications.payoutIdOf(r) ?? dlocal.payoutPort!.pixNotifications.payoutIdOf(r),
          },
        }
      : {}),
    // Pix Automático (DESIGN.md 9.3): only through the API Pix PSP whose block names the receiving account (`recebedor`).
    ...(apiPix?.recurrence ? { pixMandates: { mandates: apiPix.recurrence.mandates, callbacks: apiPix.recurrence.callbacks } } : {}),
    // Binance Pay: crypto orders (USDT), their signed notifications and refunds.
    ...(binancePay
      ? { heldCrypto: binancePay.payments, cryptoNotifications: binancePay.notifications, cryptoRefunds: binancePay.refunds }
      : {}),
  };
  // The document's rules and each merchant's overrides (a merchant may have one where the document has none).
  const route = (kind: string, country: CountryCode, merchant?: MerchantRouting) => routeOf(routing, kind, country, merchant);
  return { connectors: Object.keys(connectors).length ? { ...connectors, route } : null, apiPix, stp, adyen, dlocal, efi, binancePay };
}

/** Every configured provider's connectors, each provider's module imported when the document names it. */
export async function loadLiveProviders(cfg: ProvidersConfig): Promise<LiveProviders> {
  const [apiPix, stp, adyen, dlocal, efi, binancePay] = await Promise.all([
    cfg.api_pix ? import('./api-pix/api-pix.connector').then((m) => m.apiPixConnectors(cfg.api_pix!)) : null,
    cfg.stp ? import('./stp/stp.connector').then((m) => m.stpConnectors(cfg.stp!)) : null,
    cfg.adyen ? import('./adyen/adyen.connector').then((m) => m.adyenConnectors(cfg.adyen!)) : null,
    // Each provider's payout port module builds its connectors and adds the port (one chunk per provider).
    cfg.dlocal ? import('./dlocal/dlocal.payout-port').then((m) => m.dlocalLive(cfg.dlocal!)) : null,
    cfg.efi ? import('./efi/efi.payout-port').then((m) => m.efiLive(cfg.efi!)) : null,
    cfg.binance_pay ? import('./binance-pay/binance-pay.connector').then((m) => m.binancePayConnectors(cfg.binance_pay!)) : null,
  ]);
  return assembleLiveProviders(apiPix, stp, adyen, dlocal, efi, binancePay, cfg.routing as Routing | undefined);
}

/** The document's routing for one payment: the merchant's override of the kind and country (or `*`) first. */
function routeOf(routing: Routing | undefined, kind: string, country: CountryCode, merchant?: MerchantRouting): string[] | null {
  if (!isRoutingKind(kind)) return null;
  const own = merchant?.[kind];
  return routeFor(routing, kind, country, { merchant: own?.[country] ?? own?.['*'], random: Math.random });
}

const closeAll = (p: LiveProviders) => {
  p.apiPix?.client.close();
  p.stp?.client.close();
  p.adyen?.client.close();
  p.dlocal?.client.close();
  p.efi?.client.close();
  p.efi?.payIns.client.close();
  p.binancePay?.close();
};

let cache: { key: string; providers: Promise<LiveProviders> } | null = null;

/** The stage's live providers, from the configuration as it is now (cached by Powertools on AWS, read from the file locally). */
export async function liveProviders(): Promise<LiveProviders> {
  // The document's schemas load with it: a function that never goes live does not carry them at its import.
  const cfg = await (await import('./providers.config')).loadProvidersConfig();
  const key = JSON.stringify(cfg);
  if (cache?.key !== key) {
    // The previous document's clients are closed once built (a rotation); a load that failed is not kept.
    void cache?.providers.then(closeAll, () => {});
    const providers = loadLiveProviders(cfg);
    cache = { key, providers };
    providers.catch(() => {
      if (cache?.providers === providers) cache = null;
    });
  }
  return cache.providers;
}

export const liveConnectors = async () => (await liveProviders()).connectors;
