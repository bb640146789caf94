/**
 * Where a dispute is fought (DESIGN.md 9.4): a card chargeback at the acquirer that holds it (its disputes API), a PIX
 * infraction (MED) at the PSP's defense, a test dispute in the sandbox. One small interface over the three, so the
 * use cases never branch on a provider.
 */
import type { DisputeCase } from '../../domain/disputes/dispute-case';
import type { CardDisputeConnector, DefenseDocument, DefenseReason, PixInfractionDefense } from '../providers';
import type { DisputeDeps } from './dispute-deps';

export interface DefenseChannel {
  /** The reasons the merchant may choose, with their documents (a MED defense: none, text only). */
  reasons(): Promise<readonly DefenseReason[]>;
  /** Whether this channel takes documents (a MED defense is its text). */
  readonly takesDocuments: boolean;
  /** Whether a defense needs text (a MED defense is its text). */
  readonly needsText: boolean;
  supply(documents: readonly DefenseDocument[]): Promise<void>;
  /** `submission` names the submission (a retry of it is the same request at the provider). */
  remove(type: string, submission: string): Promise<void>;
  defend(reason: string | null, text: string | null, submission: string): Promise<void>;
  accept(): Promise<void>;
}

/**
 * The sandbox's defense reasons (named as Adyen names them, so an integration built on the sandbox reads live ones
 * alike): the general defense with one required document, and a goods-or-services one with one of two alternatives.
 */
export const SANDBOX_DEFENSE_REASONS: readonly DefenseReason[] = [
  {
    code: 'SupplyDefenseMaterial',
    documents: [
      { type: 'DefenseMaterial', requirement: 'required' },
      { type: 'TermsAndConditions', requirement: 'optional' },
    ],
  },
  {
    code: 'GoodsOrServicesProvided',
    documents: [
      { type: 'ProofOfDelivery', requirement: 'alternative_required' },
      { type: 'ProofOfService', requirement: 'alternative_required' },
      { type: 'Invoice', requirement: 'optional' },
    ],
  },
];

const sandboxChannel = (kind: DisputeCase['kind']): DefenseChannel => ({
  reasons: async () => (kind === 'pix_med' ? [] : SANDBOX_DEFENSE_REASONS),
  takesDocuments: kind !== 'pix_med',
  needsText: kind === 'pix_med',
  supply: async () => {},
  remove: async () => {},
  defend: async () => {},
  accept: async () => {},
});

const cardChannel = (c: CardDisputeConnector, ref: string): DefenseChannel => ({
  reasons: () => c.defenseReasons(ref),
  takesDocuments: true,
  needsText: false,
  supply: (documents) => c.supplyDocuments(ref, documents),
  remove: (type, submission) => c.deleteDocument(ref, type, submission),
  defend: (reason, _text, submission) => c.defend(ref, reason ?? '', submission),
  accept: () => c.accept(ref),
});

/** A MED defense is its text; accepting sends nothing (the PSP decides the infraction without a defense). */
const medChannel = (c: PixInfractionDefense, ref: string): DefenseChannel => ({
  reasons: async () => [],
  takesDocuments: false,
  needsText: true,
  supply: async () => {},
  remove: async () => {},
  defend: (_reason, text) => c.defend(ref, text ?? ''),
  accept: async () => {},
});

/** The channel of a case, or null when its provider takes no defense through an API (a dLocal chargeback). */
export async function defenseChannelOf(deps: Pick<DisputeDeps, 'connectors'>, d: DisputeCase): Promise<DefenseChannel | null> {
  if (!d.livemode) return sandboxChannel(d.kind);
  const c = await deps.connectors.forMode(true);
  if (d.kind === 'pix_med') return c?.pixInfractionDefense ? medChannel(c.pixInfractionDefense, d.provider_reference) : null;
  const card = c?.cardDisputes;
  return card && card.provider === d.provider ? cardChannel(card, d.provider_reference) : null;
}
