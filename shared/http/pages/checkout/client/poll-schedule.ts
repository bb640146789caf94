/**
 * How often the hosted page asks for the session status while a payment is open: every 2 s for the first 30 s
 * after the shopper last acted (paid, retried, came back to the tab), every 5 s until 2 minutes, then every
 * 10 s. A shopper who pays a PIX or a voucher in another app sees the result within seconds when it comes
 * quickly; a page left open costs 6 polls a minute, not 20.
 */
export const POLL_SCHEDULE: ReadonlyArray<{ readonly untilMs: number; readonly everyMs: number }> = [
  { untilMs: 30_000, everyMs: 2_000 },
  { untilMs: 120_000, everyMs: 5_000 },
  { untilMs: Infinity, everyMs: 10_000 },
];

/** A hidden tab polls no more often than this (the shopper is elsewhere; coming back polls at once). */
export const HIDDEN_POLL_MS = 10_000;

/** The delay before the next status poll, `sinceActionMs` after the shopper last acted. */
export function nextPollDelay(sinceActionMs: number, hidden = false): number {
  const every = POLL_SCHEDULE.find((s) => Math.max(0, sinceActionMs) < s.untilMs)!.everyMs;
  return hidden ? Math.max(every, HIDDEN_POLL_MS) : every;
}
