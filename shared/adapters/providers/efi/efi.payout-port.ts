/**
 * Efí's PIX sends as the application's one payout port (PayoutConnector): our payout request (its PIX key and
 * type and the owner's document) as Efí's send request; everything else (the sealed send, the
 * send by our idEnvio, its read-back, the refusals) is the Efí connector's. The callback parser gives every send
 * one callback names.
 */
import type { PayoutCallbacks, PayoutConnector, PayoutOrderRequest } from '../../../application/providers';
import type { EfiConfig } from '../providers.config';
import { efiConnectors, type EfiConnectors, type EfiPayoutCallbacks, type PixPayoutConnector } from './efi.connector';
import type { PixKeyType, PixPayoutOrderRequest } from './efi.transformers';

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
    register: (order) => pix.register(order),
    get: (reference) => pix.get(reference),
  };
}

export function efiPayoutCallbacks(cb: EfiPayoutCallbacks): PayoutCallbacks {
  return {
    tokenMatches: (token) => cb.tokenMatches(token),
    parseState: (body) => cb.parseState(body),
    parseAll: (body) => cb.parseStates(body)?.items ?? null,
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
