/**
 * An attempt a payment failed over from after the call got no answer and a read-back by its reference found
 * nothing (DESIGN.md 9.2): the request may still have been in flight and land later, so the attempt is read back
 * on a schedule until it is certain nothing is there, or what is there is undone (removed, refunded, cancelled)
 * and alarmed. Its own item, so it outlives the payment's open life.
 */
export interface AttemptWatch {
  readonly payment_id: string;
  /** The provider as the providers document names its block. */
  readonly provider: string;
  /** The routed kind (`pix`, `card`, ...). */
  readonly kind: string;
  /** Our reference of the attempt at the provider. */
  readonly reference: string;
  readonly amount_minor: number;
  readonly currency: string;
  /** When the attempt was abandoned. */
  readonly created_at: string;
  readonly next_check_at: string;
  /** Read-backs made so far. */
  readonly checks: number;
}

/** How long after it was abandoned an attempt that shows nothing is still read back: past any in-flight retry. */
export const ATTEMPT_WATCH_SECONDS = 900;
/** The read-backs' schedule after the attempt was abandoned (seconds), then every last step until the window ends. */
export const ATTEMPT_WATCH_STEPS = [60, 180, 420, 900] as const;

/** When a watch reads its attempt next after `checks` read-backs, or null when the window is over. */
export function nextWatchAt(createdAt: string, checks: number): string | null {
  const step = ATTEMPT_WATCH_STEPS[checks];
  return step === undefined ? null : new Date(Date.parse(createdAt) + step * 1000).toISOString();
}
