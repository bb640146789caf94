/** Key modes and scopes: what an API key may do. Pure values, read by the route manifest, the authenticator and the CLI. */

export const MODES = ['test', 'live'] as const;
/** test keys see sandbox objects, live keys real ones (SPEC.md 2). */
export type Mode = (typeof MODES)[number];

/** The mode an object belongs to, from its livemode flag. */
export const modeOf = (livemode: boolean): Mode => (livemode ? 'live' : 'test');

export const SCOPES = [
  'methods:read',
  'checkout:read',
  'checkout:write',
  'payments:read',
  'payments:write',
  'payouts:read',
  'payouts:write',
  'balance:read',
  'events:read',
  'events:write',
] as const;
export type Scope = (typeof SCOPES)[number];
