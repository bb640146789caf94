/** What a connector throws: no answer (outcome unknown) or a definite no. */

/**
 * The provider could not give an answer: timeout, connection refused, TLS failure, 5xx, or auth that did
 * not recover. The outcome of the call is unknown; the object stays open with its reference and the
 * reconciliation job resolves it.
 */
export class ProviderUnavailable extends Error {
  constructor(
    readonly provider: string,
    readonly operation: string,
    readonly reason: string,
    /**
     * Certainly never sent: the connection was refused, the TLS handshake failed or the token could not be had
     * before our request left, so the provider holds nothing of it (a failover may follow, DESIGN.md 9.2).
     * False when the request may have reached the provider (a timeout, a reset, a 5xx): its outcome is unknown.
     */
    readonly notSent = false,
  ) {
    super(`${provider} ${operation}: ${reason}`);
    this.name = 'ProviderUnavailable';
  }
}

/** The provider answered a definite no (its 4xx): nothing was created there. `code` is ours, never its text. */
export class ProviderRejected extends Error {
  constructor(
    readonly provider: string,
    readonly operation: string,
    readonly code: string,
    readonly status: number,
    /** The provider documents this answer as "not processed": nothing was created, another provider may be tried. */
    readonly notProcessed = false,
    /**
     * A refusal about the payer (cadastral situation, a limit, a blacklist): nothing was created, yet another
     * provider must not be asked to override it, so it never fails over.
     */
    readonly payerRefusal = false,
  ) {
    super(`${provider} ${operation} refused (${status}): ${code}`);
    this.name = 'ProviderRejected';
  }
}
