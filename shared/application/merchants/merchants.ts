/** Ops use cases for merchants and API keys (the CLI calls these). */
import type { Mode, Scope } from '../../domain/access';
import { AppError } from '../../domain/errors';
import { COUNTRY_CODES, type CountryCode } from '../../domain/geo';
import { COLLECTION_METHOD_CODES } from '../../domain/catalog/payment-methods';
import { PAYOUT_METHOD_CODES } from '../../domain/catalog/payout-methods';
import {
  keyHint,
  WEBHOOK_SECRET_OVERLAP_MS,
  type ApiKey,
  type Merchant,
  type MerchantRouteRule,
  type MerchantStatus,
} from '../../domain/merchant';
import type { ApiKeyRepository, Clock, IdGenerator, MerchantRepository, SecretGenerator } from '../ports';

export interface MerchantAdminDeps {
  readonly merchants: MerchantRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly ids: IdGenerator;
  readonly secrets: SecretGenerator;
  readonly clock: Clock;
  /** DESIGN.md 6: sandbox merchants start with a test balance in every currency (the CLI and npm start pass it). */
  readonly seedTestBalances?: (merchantId: string) => Promise<void>;
}

export const ALL_METHOD_CODES: readonly string[] = [...COLLECTION_METHOD_CODES, ...PAYOUT_METHOD_CODES];

export interface CreateMerchantInput {
  readonly name: string;
  readonly countries?: readonly CountryCode[];
  readonly methods?: readonly string[];
  readonly notification_url?: string | null;
}

export interface CreatedKey {
  readonly key: ApiKey;
  /** Shown once; only its hash is stored. */
  readonly secret: string;
}

export function merchantAdmin(deps: MerchantAdminDeps) {
  const newKey = (merchantId: string, mode: Mode, scopes: readonly (Scope | '*')[]): { key: ApiKey; raw: string } => {
    const raw = deps.secrets.apiKey(mode);
    const key: ApiKey = {
      key_id: deps.ids.newId('key_'),
      merchant_id: merchantId,
      mode,
      scopes: [...scopes],
      status: 'active',
      hint: keyHint(raw, mode),
      created_at: deps.clock.now().toISOString(),
      revoked_at: null,
    };
    return { key, raw };
  };

  const requireMerchant = async (merchantId: string) => {
    const merchant = await deps.merchants.get(merchantId);
    if (!merchant) throw new AppError('MERCHANT_NOT_FOUND', `Merchant ${merchantId} not found.`);
    return merchant;
  };

  return {
    /** Creates a merchant with its webhook secret and one full sk_test_ key, atomically. */
    async createMerchant(input: CreateMerchantInput) {
      const name = input.name.trim();
      if (!name) throw new AppError('VALIDATION_ERROR', 'Merchant name is required.');
      const unknownMethod = input.methods?.find((m) => !ALL_METHOD_CODES.includes(m));
      if (unknownMethod) throw new AppError('VALIDATION_ERROR', `Unknown method code ${unknownMethod}.`);
      const unknownCountry = input.countries?.find((c) => !(COUNTRY_CODES as readonly string[]).includes(c));
      if (unknownCountry) throw new AppError('VALIDATION_ERROR', `Unknown country ${unknownCountry}.`);
      const now = deps.clock.now().toISOString();
      const merchant: Merchant = {
        merchant_id: deps.ids.newId('mch_'),
        name,
        status: 'active',
        countries: [...(input.countries ?? COUNTRY_CODES)],
        methods: [...(input.methods ?? ALL_METHOD_CODES)],
        notification_url: input.notification_url ?? null,
        created_at: now,
        updated_at: now,
      };
      const webhookSecret = deps.secrets.webhookSecret();
      const { key, raw } = newKey(merchant.merchant_id, 'test', ['*']);
      await deps.merchants.create(merchant, webhookSecret, key, deps.secrets.hashKey(raw));
      await deps.seedTestBalances?.(merchant.merchant_id);
      return { merchant, apiKey: { key, secret: raw } as CreatedKey, webhookSecret };
    },

    async createKey(merchantId: string, mode: Mode, scopes: readonly (Scope | '*')[] = ['*']): Promise<CreatedKey> {
      await requireMerchant(merchantId);
      if (scopes.length === 0) throw new AppError('VALIDATION_ERROR', 'A key needs at least one scope.');
      const { key, raw } = newKey(merchantId, mode, scopes);
      await deps.apiKeys.create(key, deps.secrets.hashKey(raw));
      return { key, secret: raw };
    },

    async revokeKey(merchantId: string, keyId: string): Promise<ApiKey> {
      const revoked = await deps.apiKeys.revoke(merchantId, keyId, deps.clock.now());
      if (!revoked) throw new AppError('VALIDATION_ERROR', `No active key ${keyId} for merchant ${merchantId}.`);
      return revoked;
    },

    listKeys: (merchantId: string) => deps.apiKeys.listByMerchant(merchantId),

    /** New secret signs from now on; the previous one keeps signing for 24 h (both sign meanwhile). */
    async rotateWebhookSecret(merchantId: string) {
      await requireMerchant(merchantId);
      const current = await deps.merchants.getWebhookSecrets(merchantId);
      if (!current) throw new AppError('MERCHANT_NOT_FOUND', `Merchant ${merchantId} has no webhook secret.`);
      const now = deps.clock.now();
      const next = {
        current: deps.secrets.webhookSecret(),
        previous: current.current,
        previous_expires_at: new Date(now.getTime() + WEBHOOK_SECRET_OVERLAP_MS).toISOString(),
        rotated_at: now.toISOString(),
      };
      await deps.merchants.rotateWebhookSecret(merchantId, current.current, next);
      return { webhookSecret: next.current, previousExpiresAt: next.previous_expires_at };
    },

    /** Sets (n) or removes (null) per-route rate-limit overrides, keeping the others. */
    async setRateLimits(merchantId: string, changes: Record<string, number | null>) {
      const m = await deps.merchants.get(merchantId);
      if (!m) throw new AppError('MERCHANT_NOT_FOUND');
      const next: Record<string, number> = { ...(m.rate_limits ?? {}) };
      for (const [route, limit] of Object.entries(changes)) {
        if (limit === null) delete next[route];
        else next[route] = limit;
      }
      return deps.merchants.setRateLimits(merchantId, next, deps.clock.now());
    },

    /**
     * Sets (a rule) or removes (null) the merchant's routing override for a kind in a country (`*`: every country
     * without its own). The rule is checked by the caller against the providers document (the CLI: ruleProblems);
     * PIX pay-ins and payouts read it first (routing, DESIGN.md 9.2).
     */
    async setRoutingRule(merchantId: string, kind: string, country: string, rule: MerchantRouteRule | null) {
      if (rule) return { merchant: await deps.merchants.setRoutingRule(merchantId, kind, country, rule, deps.clock.now()), changed: true };
      const r = await deps.merchants.removeRoutingRule(merchantId, kind, country, deps.clock.now());
      return { merchant: r.merchant, changed: r.removed };
    },

    async setStatus(merchantId: string, status: MerchantStatus) {
      return deps.merchants.setStatus(merchantId, status, deps.clock.now());
    },

    getMerchant: requireMerchant,
  };
}

export type MerchantAdmin = ReturnType<typeof merchantAdmin>;
