/** Fixed one-minute windows (SPEC.md section 8 limits are per minute). Pure arithmetic. */
export const WINDOW_SECONDS = 60;

export interface RateLimitState {
  readonly limit: number;
  readonly remaining: number;
  /** Unix seconds when the window ends. */
  readonly resetAt: number;
}

export function windowOf(nowMs: number) {
  const start = Math.floor(nowMs / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;
  return { start, end: start + WINDOW_SECONDS };
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(Math.max(0, state.remaining)),
    'x-ratelimit-reset': String(state.resetAt),
  };
}

export const retryAfterSeconds = (resetAt: number, nowMs: number) => Math.max(1, Math.ceil(resetAt - nowMs / 1000));
