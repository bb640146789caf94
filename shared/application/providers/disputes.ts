/**
 * Fighting a dispute at its provider (DESIGN.md 9.4): a card chargeback's defense through the acquirer's disputes
 * API (the defense reasons it lists for this dispute, the documents each needs, supplying them, defending or
 * accepting), and a PIX infraction's (MED) defense at the PSP. What the dispute use cases ask of a provider.
 */

export const DEFENSE_DOCUMENT_REQUIREMENTS = ['required', 'one_or_more', 'optional', 'alternative_required'] as const;
export type DefenseDocumentRequirement = (typeof DEFENSE_DOCUMENT_REQUIREMENTS)[number];

/** A defense reason the provider lists for one dispute, with the documents it needs (the provider's codes). */
export interface DefenseReason {
  readonly code: string;
  readonly documents: readonly { readonly type: string; readonly requirement: DefenseDocumentRequirement }[];
}

export const DEFENSE_DOCUMENT_MIMES = ['application/pdf', 'image/jpeg', 'image/tiff'] as const;
export type DefenseDocumentMime = (typeof DEFENSE_DOCUMENT_MIMES)[number];

export interface DefenseDocument {
  /** The provider's document type code, one the chosen defense reason lists. */
  readonly type: string;
  readonly mime: DefenseDocumentMime;
  readonly contentBase64: string;
}

/** A card acquirer's disputes API, by the provider's own id of the dispute (its pspReference of the chargeback). */
export interface CardDisputeConnector {
  readonly provider: string;
  /** The defense reasons that apply to this dispute now, with their documents. */
  defenseReasons(disputeReference: string): Promise<readonly DefenseReason[]>;
  /** Supplies documents (each replacing one of its type already supplied). The same call again changes nothing more. */
  supplyDocuments(disputeReference: string, documents: readonly DefenseDocument[]): Promise<void>;
  /**
   * Removes a document supplied earlier (a restaged defense without it). `submission` names the submission removing it:
   * the same call again for one submission (a retry after no answer) is the same request, answered the same.
   */
  deleteDocument(disputeReference: string, type: string, submission?: string): Promise<void>;
  /** Defends with a reason whose documents were supplied; `submission` as for deleteDocument (one defense per submission). */
  defend(disputeReference: string, defenseReasonCode: string, submission?: string): Promise<void>;
  /** Accepts the dispute (the merchant gives up: the chargeback stands). */
  accept(disputeReference: string): Promise<void>;
}

/** A PIX infraction (MED) at the PSP, by its id: the receiver's defense and what the PSP decided. */
export type PixInfractionState =
  | { readonly kind: 'not_found' }
  | { readonly kind: 'open'; readonly defended: boolean; readonly deadline: string | null }
  | { readonly kind: 'closed'; readonly outcome: 'returned' | 'not_returned'; readonly at: string };

export interface PixInfractionDefense {
  readonly provider: string;
  /** Sends the receiver's defense text (the same call again for the same infraction changes nothing more). */
  defend(infractionId: string, text: string): Promise<void>;
  get(infractionId: string): Promise<PixInfractionState>;
}
