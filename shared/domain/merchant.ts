/** Merchants and their API keys: pure types and rules, no AWS. */
import * as z from './zod';
import { COUNTRY_CODES, type CountryCode } from './geo';
import { SCOPES, type Mode, type Scope } from './access';

export const MERCHANT_STATUSES = ['active', 'inactive'] as const;
export type MerchantStatus = (typeof MERCHANT_STATUSES)[number];

/**
 * One routing override (issue 42): the providers to try in order, as the providers document names them, and
 * optionally their split in percent. Plain data here; which names and splits are valid is the providers adapter's.
 */
export const merchantRouteRuleSchema = z.object({
  providers: z.array(z.string()),
  split: z.optional(z.array(z.number())),
});
export type MerchantRouteRule = z.infer<typeof merchantRouteRuleSchema>;

export const merchantSchema = z.object({
  merchant_id: z.string().check(z.regex(/^mch_[A-Za-z0-9_-]{22,}$/)),
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  status: z.enum(MERCHANT_STATUSES),
  countries: z.array(z.enum(COUNTRY_CODES)),
  /** Enabled collection and payout method codes (svc-mt-N). */
  methods: z.array(z.string().check(z.regex(/^svc-mt-\d+$/))),
  notification_url: z.nullable(z.string().check(z.url())),
  /** Per-route requests per minute set by ops (route id -> limit); a route not listed keeps the SPEC default. */
  rate_limits: z.optional(z.record(z.string(), z.number().check(z.int(), z.gte(1), z.lte(1_000_000)))),
  /** Routing overrides set by ops: method kind -> country code or `*` -> rule. Read first by routed payments (DESIGN.md 9.2). */
  routing: z.optional(z.record(z.string(), z.record(z.string(), merchantRouteRuleSchema))),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Merchant = z.infer<typeof merchantSchema>;

/** The limit a merchant gets on a route: ops' override, else the route's default (null: not limited). */
export const rateLimitFor = (merchant: Pick<Merchant, 'rate_limits'> | undefined, routeId: string, routeDefault: number | null) =>
  routeDefault === null ? null : (merchant?.rate_limits?.[routeId] ?? routeDefault);

export const API_KEY_STATUSES = ['active', 'revoked'] as const;

/** An API key as stored: never the key itself, only its SHA-256 hash (kept by the repository). */
export const apiKeySchema = z.object({
  key_id: z.string(),
  merchant_id: z.string(),
  mode: z.enum(['test', 'live']),
  /** ['*'] for a full key, else the scopes of a restricted key. */
  scopes: z.array(z.union([z.literal('*'), z.enum(SCOPES)])),
  status: z.enum(API_KEY_STATUSES),
  /** Recognisable, non-secret hint: prefix and last four (sk_test_…a1b2). */
  hint: z.string(),
  created_at: z.string(),
  revoked_at: z.nullable(z.string()),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const KEY_PREFIX: Readonly<Record<Mode, string>> = { test: 'sk_test_', live: 'sk_live_' };

/** The mode a raw key claims by its prefix; null when it is not one of ours. */
export function keyModeOf(rawKey: string): Mode | null {
  if (rawKey.startsWith(KEY_PREFIX.test)) return 'test';
  if (rawKey.startsWith(KEY_PREFIX.live)) return 'live';
  return null;
}

export const keyHint = (rawKey: string, mode: Mode) => `${KEY_PREFIX[mode]}…${rawKey.slice(-4)}`;

export function keyAllows(key: Pick<ApiKey, 'scopes'>, scope: Scope | undefined): boolean {
  if (!scope) return true;
  return key.scopes.includes('*') || key.scopes.includes(scope);
}

export function isMethodEnabled(merchant: Pick<Merchant, 'methods' | 'countries'>, code: string, country?: CountryCode) {
  return merchant.methods.includes(code) && (country === undefined || merchant.countries.includes(country));
}

/** How long the previous webhook secret keeps signing after a rotation. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
