/**
 * Efí's PIX sends as the application's one payout port (PayoutConnector): our payout request (its PIX key and
 * type and the owner's document) as Efí's send request; everything else (the sealed send, the
 * send by our idEnvio, its read-back, the refusals) is the Efí connector's. The callback parser gives every send
 * one callback names.
 */
import { ProviderRejected, type PayoutCallbacks, type PayoutConnector, type PayoutOrderRequest } from '../../../application/providers';
import { recordPayoutFloatLow } from '../../../observability/provider-metrics';
import type { ApiPixConfig, EfiConfig } from '../providers.config';
import { apiPixConnectors, type ApiPixConnectors } from '../api-pix/api-pix.connector';
import type { ApiPixPsp } from '../api-pix/api-pix.client';
import { EFI } from './efi.client';
import { efiConnectors, type EfiConnectors, type EfiPayoutCallbacks, type PixPayoutConnector } from './efi.connector';
import type { PixKeyType, PixPayoutOrderRequest } from './efi.transformers';

/** Our failure code of a payout refused for our own balance at the provider (efi.transformers' sendRefusalOf, spiReasonCode). */
const BALANCE_LOW = 'provider_balance_insufficient';

const KEY_TYPES: readonly PixKeyType[] = ['cpf', 'cnpj', 'email', 'phone', 'random'];

/**
 * Our payout as Efí's send request, by PIX key (svc-mt-5 requires one). A send by bank account needs the branch
 * (agência), which SPEC.md's beneficiary does not carry: the connector offers it, our API does not yet.
 */
export function pixRequestOf(req: PayoutOrderRequest): PixPayoutOrderRequest {
  const type = KEY_TYPES.find((t) => t === req.instantTransferType);
  return {
    payoutId: req.payoutId,
    ...(req.reference ? { reference: req.reference } : {}),
    amountMinor: req.amountMinor,
    beneficiaryName: req.beneficiaryName,
    beneficiaryDocument: req.beneficiaryDocument,
    ...(req.instantTransferKey && type ? { pixKey: { type, value: req.instantTransferKey } } : {}),
    concept: req.concept,
  };
}

export function efiPayoutPort(pix: PixPayoutConnector): PayoutConnector {
  return {
    provider: pix.provider,
    returnWatchSeconds: pix.returnWatchSeconds,
    prepare: (req) => pix.prepare(pixRequestOf(req)),
    async register(order) {
      try {
        return await pix.register(order);
      } catch (e) {
        // Our balance at Efí does not cover the send: this payout fails (credited back), and ops are paged.
        if (e instanceof ProviderRejected && e.code === BALANCE_LOW) recordPayoutFloatLow(EFI);
        throw e;
      }
    },
    async get(reference) {
      const s = await pix.get(reference);
      // NAO_REALIZADO read back names no reason: our generic code (a callback's SPI reason refines it).
      return s.kind === 'cancelled' ? { ...s, failureCode: s.failureCode ?? 'rejected_by_provider' } : s;
    },
  };
}

export function efiPayoutCallbacks(cb: EfiPayoutCallbacks): PayoutCallbacks {
  return {
    tokenMatches: (token) => cb.tokenMatches(token),
    parseState: (body) => cb.parseState(body),
    parseAll(body) {
      const items = cb.parseStates(body)?.items ?? null;
      // A send failed for our balance at Efí (SPI AM04): paged as soon as Efí says so (the read-back confirms the failure).
      const low = items?.filter((i) => i.reasonHint === BALANCE_LOW).length ?? 0;
      if (low > 0) recordPayoutFloatLow(EFI, low);
      return items;
    },
    payoutIdOf: (reference) => cb.payoutIdOf(reference),
  };
}

/**
 * Efí's connectors with its PIX sends as the payout port and its send callbacks as the port's parser, and its PIX
 * pay-ins through the standard API Pix (DESIGN.md 9.2: `base_url` + `/v2/cob/{txid}`, the token by JSON as Efí's
 * OAuth takes it), named `efi` so each payment, refund and callback goes back to Efí.
 */
export interface EfiLive extends EfiConnectors {
  readonly payouts: PayoutConnector;
  readonly payoutCallbacks: PayoutCallbacks;
  readonly payIns: ApiPixConnectors;
}

export const EFI_PSP: ApiPixPsp = { name: EFI, tokenEncoding: 'json' };

/** The efi block as an API Pix PSP's configuration: Efí serves the standard API under /v2 of its root. */
export const efiAsApiPix = (cfg: EfiConfig): ApiPixConfig => ({
  base_url: `${cfg.base_url.replace(/\/$/, '')}/v2`,
  token_url: cfg.token_url,
  client_id: cfg.client_id,
  client_secret: cfg.client_secret,
  certificate_pem: cfg.certificate_pem,
  private_key_pem: cfg.private_key_pem,
  ...(cfg.ca_pem ? { ca_pem: cfg.ca_pem } : {}),
  pix_key: cfg.pix_key,
  webhook_token: cfg.webhook_token,
  ...(cfg.timeouts ? { timeouts: cfg.timeouts } : {}),
});

export function efiLive(cfg: EfiConfig): EfiLive {
  const c = efiConnectors(cfg);
  return {
    ...c,
    payouts: efiPayoutPort(c.pixPayouts),
    payoutCallbacks: efiPayoutCallbacks(c.pixPayoutCallbacks),
    payIns: apiPixConnectors(efiAsApiPix(cfg), undefined, EFI_PSP),
  };
}
