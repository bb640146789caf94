/**
 * When a payment a provider holds is read back from it (its callback may never come): young payments sooner,
 * while the shopper is still on the page (10 s, 30 s and 60 s after the payment was made), then every
 * `intervalSeconds`. A status read may ask for one more, at most once per READ_BACK_ON_READ_GAP_SECONDS.
 */
export const EARLY_READ_BACKS_SECONDS: readonly number[] = [10, 30, 60];
export const READ_BACK_ON_READ_GAP_SECONDS = 10;

/** The next read-back after `now` of a payment made at `createdAt` (ISO). */
export function nextReadBackAt(createdAt: string, now: Date, intervalSeconds: number): string {
  const made = Date.parse(createdAt);
  const early = EARLY_READ_BACKS_SECONDS.map((s) => made + s * 1000).find((t) => t > now.getTime());
  return new Date(early ?? now.getTime() + intervalSeconds * 1000).toISOString();
}

/** The first read-back of a payment just made (the work index's first entry). */
export const firstReadBackAt = (createdAt: string): string =>
  new Date(Date.parse(createdAt) + (EARLY_READ_BACKS_SECONDS[0] as number) * 1000).toISOString();
