/** Live SPEI pay-in connectors: a CLABE per payment and the deposit callback's check, parser and read-back. */

/** An incoming transfer to one of our pay-in accounts, as the provider's callback reports it. */
export interface IncomingDeposit {
  /** The provider's id of the deposit: the idempotency key of its record. */
  readonly depositId: string;
  readonly clabe: string;
  readonly amountMinor: number;
  readonly trackingKey: string;
  readonly paidAt: string;
  /** The provider's operation date of the deposit (YYYYMMDD), when the callback gives it: its query needs it. */
  readonly operationDate?: string;
}

/** What the provider's own record of a deposit says of a callback: the same deposit, none, or another one. */
export type DepositConfirmation = 'confirmed' | 'not_found' | 'differs';

/** Live SPEI pay-ins: a CLABE per payment under the platform's account, and the deposit callback's check and parser. */
export interface SpeiDepositConnector {
  readonly provider: { readonly name: string };
  /** The payment's CLABE; `attempt` > 0 gives another one when the first is already taken. */
  clabeFor(paymentId: string, attempt: number): string;
  tokenMatches(token: string): boolean;
  parseDeposit(body: unknown): IncomingDeposit | null;
  /**
   * The deposit read back from the provider (a callback body alone is never trusted): confirmed only when the
   * provider holds a settled deposit with this tracking key, account and amount. ProviderUnavailable: no answer.
   */
  confirm(d: IncomingDeposit): Promise<DepositConfirmation>;
}
