/**
 * Efí's PIX sends as the application's one payout port (PayoutConnector): our payout request (its PIX key and
 * type and the owner's document) as Efí's send request; everything else (the sealed send, the
 * send by our idEnvio, its read-back, the refusals) is the Efí connector's. The callback parser gives every send
 * one callback names.
 */
import { ProviderRejected, type PayoutCallbacks, type PayoutConnector, type PayoutOrderRequest } from '../../../application/providers';
import { recordPayoutFloatLow } from '../../../observability/provider-metrics';
import type { EfiConfig } from '../providers.config';
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

/** Efí's connectors with its PIX sends as the payout port and its send callbacks as the port's parser. */
export interface EfiLive extends EfiConnectors {
  readonly payouts: PayoutConnector;
  readonly payoutCallbacks: PayoutCallbacks;
}

export function efiLive(cfg: EfiConfig): EfiLive {
  const c = efiConnectors(cfg);
  return { ...c, payouts: efiPayoutPort(c.pixPayouts), payoutCallbacks: efiPayoutCallbacks(c.pixPayoutCallbacks) };
}
