/** Whole seconds from an ISO time to `now` (never negative); 0 when there is no time. */
export const ageSeconds = (since: string | null, now: Date): number =>
  since ? Math.max(0, Math.floor((now.getTime() - Date.parse(since)) / 1000)) : 0;
