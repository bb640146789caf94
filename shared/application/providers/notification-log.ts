/**
 * The log of a provider's verified notifications, idempotent by the provider's key (for Adyen, pspReference +
 * eventCode): each is recorded before its effect is applied and marked with its outcome after, so a redelivery of
 * one already applied is answered at once, and one whose effect a crash interrupted is applied again (every effect
 * is itself a conditional write, so applying it again changes nothing it already changed).
 */
export type NotificationRecord = Readonly<Record<string, string | number | boolean | null>>;

export interface NotificationLog {
  /** 'new' when this delivery must apply it (first delivery, or an earlier one that did not finish); 'done' otherwise. */
  begin(provider: string, key: string, record: NotificationRecord, now: string): Promise<'new' | 'done'>;
  /** The outcome of applying it (applied, duplicate, ignored, mismatch, unknown...). */
  finish(provider: string, key: string, outcome: string, now: string): Promise<void>;
}
