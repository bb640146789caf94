/**
 * The stage's live provider configuration (DESIGN.md section 8): one JSON document, every provider optional.
 * On AWS it is the Secrets Manager secret PROVIDERS_SECRET_NAME, read with Powertools Parameters (cached at
 * most 5 minutes, so a rotation reaches every container within that); on the local live stage it is the file
 * PROVIDERS_FILE. A malformed document is refused with the field named, and nothing is sent to a provider.
 */
import { readFileSync } from 'node:fs';
import * as z from '../../domain/zod';
import { WALLET_CHOICES } from '../../domain/payments/methods';
import { routingProblems, type RoutingKind, type RoutingProvider } from './routing';
import { adyenEnvironmentOf } from './adyen/adyen.endpoints';

const text = (max = 4096) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max));
const httpsUrl = z.string().check(z.regex(/^https:\/\/[^\s/$.?#][^\s]*$/, 'must be an https:// URL'));
const pem = (label: string) =>
  z
    .string()
    .check(
      z.regex(new RegExp(`-----BEGIN [A-Z ]*${label}[A-Z ]*-----[\\s\\S]+-----END [A-Z ]*${label}[A-Z ]*-----`), `must be a PEM ${label}`),
    );
/** Connect and total time allowed per call (ms): a provider that does not answer in time leaves the object open, never a hung function. */
const timeouts = z.optional(
  z.strictObject({
    connect_ms: z.optional(z.number().check(z.int(), z.gte(100), z.lte(30_000))),
    total_ms: z.optional(z.number().check(z.int(), z.gte(500), z.lte(25_000))),
  }),
);
const webhookToken = z.string().check(z.regex(/^[A-Za-z0-9_-]{32,128}$/, 'must be 32 to 128 URL-safe characters (unguessable)'));

/**
 * The merchant's receiving account at the PSP, which every Pix Automático charge (`cobr`) names (API Pix 2.9.0
 * DadosBancariosRecebedor: `conta` and `tipoConta` required, `agencia` optional, at most 4 characters: a payment
 * institution's account may have none). With it the PSP's Pix Automático is offered; without it, not.
 */
export const recebedorConfigSchema = z.strictObject({
  agencia: z.optional(z.string().check(z.regex(/^\d{1,4}$/, 'must be 1 to 4 digits (the branch, without its check digit)'))),
  conta: z.string().check(z.regex(/^\d{1,20}$/, 'must be 1 to 20 digits (the account with its check digit, no separator)')),
  tipoConta: z.enum(['CORRENTE', 'POUPANCA', 'PAGAMENTO']),
});
export type RecebedorConfig = z.infer<typeof recebedorConfigSchema>;

/** What every API Pix PSP's block carries (the `efi` block extends it: Efí offers no Pix Automático here). */
const apiPixBaseSchema = z.strictObject({
  base_url: httpsUrl,
  token_url: httpsUrl,
  client_id: text(256),
  client_secret: text(1024),
  certificate_pem: pem('CERTIFICATE'),
  private_key_pem: pem('PRIVATE KEY'),
  ca_pem: z.optional(pem('CERTIFICATE')),
  pix_key: text(77),
  webhook_token: webhookToken,
  timeouts,
});

export const apiPixConfigSchema = z.extend(apiPixBaseSchema, {
  /** Pix Automático (recurrences and their charges, DESIGN.md 9.3): offered only when present. */
  recebedor: z.optional(recebedorConfigSchema),
});
export type ApiPixConfig = z.infer<typeof apiPixConfigSchema>;

export const adyenConfigSchema = z.strictObject({
  base_url: httpsUrl,
  api_key: text(1024),
  merchant_account: text(256),
  hmac_key_hex: z.string().check(z.regex(/^[0-9A-Fa-f]{64}$/, 'must be 64 hex characters')),
  /** When present, the only certificate authority trusted for Adyen's server certificate (the fake Adyen locally). */
  ca_pem: z.optional(pem('CERTIFICATE')),
  /**
   * The Disputes API (DisputeService v30) root, e.g. https://ca-test.adyen.com/ca/services/DisputeService/v30. Optional:
   * derived from `base_url` (adyen/adyen.endpoints.ts: Adyen's test Checkout -> ca-test, live -> ca-live, another host ->
   * the same origin); set it for a location-based live data center or a fake.
   */
  disputes_base_url: z.optional(httpsUrl),
  /** Seconds an unanswered card payment waits for its AUTHORISATION notification before a technical cancel. */
  cancel_after_seconds: z.optional(z.number().check(z.int(), z.gte(60), z.lte(86_400))),
  timeouts,
});
export type AdyenConfig = z.infer<typeof adyenConfigSchema>;

export const stpConfigSchema = z.strictObject({
  base_url: httpsUrl,
  empresa: text(64),
  cuenta_ordenante: z.string().check(z.regex(/^\d{18}$/, 'must be an 18-digit CLABE')),
  private_key_pem: pem('PRIVATE KEY'),
  private_key_passphrase: z.optional(text(1024)),
  ca_pem: z.optional(pem('CERTIFICATE')),
  webhook_token: webhookToken,
  /**
   * The root of STP's efws API, where a deposit is confirmed (`/consultaOrden` appended). Default: base_url's
   * origin + `/efws/API` (production: https://prod.stpmex.com/efws/API; STP's test environment has its own host,
   * https://efws-dev.stpmex.com/efws/API).
   */
  efws_url: z.optional(httpsUrl),
  /**
   * Seconds a completed SPEI payout is still read back from STP for a return (DEVOLUCION) that comes without a
   * callback; 0 turns the watch off. Default STP_RETURN_WATCH_SECONDS (3 days).
   */
  return_watch_seconds: z.optional(z.number().check(z.int(), z.gte(0), z.lte(2_592_000))),
  timeouts,
});
/** How long a completed SPEI payout is watched for a return when the configuration does not say: 3 days. */
export const STP_RETURN_WATCH_SECONDS = 259_200;
export type StpConfig = z.infer<typeof stpConfigSchema>;

/**
 * dLocal (Peru, Colombia, Chile, Argentina, Ecuador): pay-ins signed with x_login, x_trans_key and secret_key
 * (V2-HMAC-SHA256); payouts v3 with an OAuth2 client (client_id, client_secret), at base_url unless
 * payouts.base_url says otherwise.
 */
export const dlocalConfigSchema = z.strictObject({
  base_url: httpsUrl,
  x_login: text(256),
  x_trans_key: text(256),
  secret_key: text(1024),
  payouts: z.optional(z.strictObject({ base_url: z.optional(httpsUrl), client_id: text(256), client_secret: text(1024) })),
  /** When present, the only certificate authority trusted for dLocal's server certificate (the fake dLocal locally). */
  ca_pem: z.optional(pem('CERTIFICATE')),
  /**
   * The Brazilian wallets the dLocal account serves (svc-mt-9), in the order the page offers them; default all three.
   * A process request may name one of them (`wallet`); another is a 400 naming the field.
   */
  wallets: z.optional(z.array(z.enum(WALLET_CHOICES)).check(z.minLength(1), z.maxLength(WALLET_CHOICES.length))),
  timeouts,
});
export type DlocalConfig = z.infer<typeof dlocalConfigSchema>;

/**
 * Efí (PIX payouts and MED, DESIGN.md section 8): OAuth2 client credentials over mutual TLS, like API Pix.
 * `base_url` is the API's root (https://pix.api.efipay.com.br, homologation https://pix-h.api.efipay.com.br:
 * paths such as /v3/gn/pix/{idEnvio} are appended); `token_url` its /oauth/token; `pix_key` the account's key
 * the sends are paid from (its registered webhook is where Efí tells the outcome of each send).
 */
export const efiConfigSchema = z.extend(apiPixBaseSchema, {
  /** Seconds a completed PIX payout is still read back for a return (devolução) by the beneficiary's bank; 0 turns it off. */
  return_watch_seconds: z.optional(z.number().check(z.int(), z.gte(0), z.lte(7_776_000))),
  /**
   * Days back the MED defense looks for an infraction by its id (Efí reads infractions only as a list by opening
   * date): default EFI_INFRACTION_LOOKBACK_DAYS.
   */
  infraction_lookback_days: z.optional(z.number().check(z.int(), z.gte(1), z.lte(366))),
});
/** How long a completed PIX payout is watched for a return when the configuration does not say: 3 days. */
export const EFI_RETURN_WATCH_SECONDS = 259_200;
/**
 * How far back an infraction is looked for when the configuration does not say: 90 days from its opening (a case
 * lasts days: the analysis' 7, a return asked within 72 hours and made within 24; the rest is room for a late read).
 */
export const EFI_INFRACTION_LOOKBACK_DAYS = 90;
export type EfiConfig = z.infer<typeof efiConfigSchema>;

/**
 * Binance Pay (crypto, svc-mt-4; DESIGN.md section 9.1): the merchant API, requests signed HMAC-SHA512 with
 * `secret_key` and identified by `api_key` (sent as BinancePay-Certificate-SN). `base_url` is the API's root
 * (https://bpay.binanceapi.com: paths such as /binancepay/openapi/v3/order are appended).
 */
export const binancePayConfigSchema = z.strictObject({
  base_url: httpsUrl,
  api_key: text(256),
  secret_key: text(1024),
  /** When present, the only certificate authority trusted for Binance Pay's server certificate (the fake locally). */
  ca_pem: z.optional(pem('CERTIFICATE')),
  /** Minutes a crypto order stays payable (Binance Pay allows at most 60); default 30, never past the session. */
  order_expiry_minutes: z.optional(z.number().check(z.int(), z.gte(5), z.lte(60))),
  timeouts,
});
export type BinancePayConfig = z.infer<typeof binancePayConfigSchema>;

/**
 * Routing between providers (issue 42, DESIGN.md section 9.2): `{"<kind>": {"<country or *>": {"providers": [...],
 * "split"?: [...]}}}`. The shape is checked here; what the keys, the providers and the split may be is checked by
 * crossChecks (shared/adapters/providers/routing.ts), each problem naming the field. Validated only: nothing routes by it yet.
 */
const routeRuleSchema = z.strictObject({
  providers: z.array(z.string()).check(z.maxLength(16)),
  split: z.optional(z.array(z.number()).check(z.maxLength(16))),
});
const routingSchema = z.record(z.string(), z.record(z.string(), routeRuleSchema));

export const providersConfigSchema = z.strictObject({
  api_pix: z.optional(apiPixConfigSchema),
  adyen: z.optional(adyenConfigSchema),
  stp: z.optional(stpConfigSchema),
  dlocal: z.optional(dlocalConfigSchema),
  efi: z.optional(efiConfigSchema),
  binance_pay: z.optional(binancePayConfigSchema),
  routing: z.optional(routingSchema),
});
export type ProvidersConfig = z.infer<typeof providersConfigSchema>;

export class ProvidersConfigError extends Error {
  constructor(
    source: string,
    readonly problems: readonly string[],
  ) {
    super(`The providers configuration (${source}) is not valid: ${problems.join('; ')}`);
    this.name = 'ProvidersConfigError';
  }
}

/** Parses a providers document, naming each bad field (never echoing a value: they are secrets). */
export function parseProvidersConfig(raw: unknown, source: string): ProvidersConfig {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new ProvidersConfigError(source, ['not JSON']);
    }
  }
  const r = z.safeParse(providersConfigSchema, value);
  if (r.success) {
    const problems = crossChecks(r.data);
    if (problems.length) throw new ProvidersConfigError(source, problems);
    return r.data;
  }
  throw new ProvidersConfigError(
    source,
    r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(document)'} ${i.message}`),
  );
}

/**
 * What no one block can say: the Pix key API Pix and Efí share (pixKeyChecks), and the routing block, whose kinds,
 * countries, providers and splits are checked by the domain (routingProblems) and whose providers must be
 * configured here, with what their kind needs (unusable).
 */
function crossChecks(c: ProvidersConfig): string[] {
  return [...pixKeyChecks(c), ...adyenChecks(c), ...(c.routing ? routingProblems(c.routing, (p, kind) => unusable(c, p, kind)) : [])];
}

interface RoutingNeed {
  readonly part: string;
  readonly has: (c: ProvidersConfig) => boolean;
}

/**
 * What a kind needs of a provider's block beyond its presence: data, not branches. dLocal pays out only with its
 * `payouts` credentials (the OAuth2 client of payouts v3).
 */
const ROUTING_NEEDS: Partial<Record<RoutingKind, Partial<Record<RoutingProvider, RoutingNeed>>>> = {
  pix_payout: { dlocal: { part: 'dlocal.payouts', has: (c) => Boolean(c.dlocal?.payouts) } },
};

/**
 * Why a routing rule cannot name `provider` for `kind` in this document, or null (`c[provider]`: each name a rule lists
 * is a block). Exported for the rules stored elsewhere (a merchant's override, `merchants routing`): ruleProblems' `usable`.
 */
export function unusable(c: ProvidersConfig, provider: RoutingProvider, kind: RoutingKind): string | null {
  if (!c[provider]) return 'which this document does not configure';
  const need = ROUTING_NEEDS[kind]?.[provider];
  return need && !need.has(c) ? `which cannot serve ${kind} without ${need.part}` : null;
}

/**
 * Efí keeps one webhook per Pix key, and a key's webhook hears both the Pix it receives and the sends paid from
 * it: the same key of the same PSP as API Pix receiver and as Efí payer would have `api-pix register-webhook` and
 * `efi register-webhook` replace each other's URL, and one rail's callbacks would go unheard. Payouts must be
 * paid from another key of the account.
 */
function pixKeyChecks(c: ProvidersConfig): string[] {
  if (!c.api_pix || !c.efi) return [];
  const origin = (url: string) => new URL(url).origin.toLowerCase();
  const key = (k: string) => k.trim().toLowerCase();
  if (origin(c.api_pix.base_url) !== origin(c.efi.base_url) || key(c.api_pix.pix_key) !== key(c.efi.pix_key)) return [];
  return [
    'efi.pix_key must not be api_pix.pix_key at the same PSP: Efí keeps one webhook per key, so the pay-in and the ' +
      'payout callbacks would replace each other; pay out from another key of the account',
  ];
}

/**
 * Adyen's test and live platforms are apart (other keys, other accounts): a block whose Checkout is one and whose Disputes
 * API is the other would defend nothing, so it is refused. Hosts that are not Adyen's (a fake, a proxy) are not judged.
 */
function adyenChecks(c: ProvidersConfig): string[] {
  if (!c.adyen?.disputes_base_url) return [];
  const checkout = adyenEnvironmentOf(c.adyen.base_url);
  const disputes = adyenEnvironmentOf(c.adyen.disputes_base_url);
  return checkout && disputes && checkout !== disputes
    ? [`adyen.disputes_base_url is Adyen's ${disputes} environment while adyen.base_url is its ${checkout} one`]
    : [];
}

/** Where this process reads its configuration: a file (local live stage), the stage's secret (AWS), or none. */
export function providersSource(env: NodeJS.ProcessEnv = process.env): { kind: 'file' | 'secret'; name: string } | null {
  if (env.PROVIDERS_FILE) return { kind: 'file', name: env.PROVIDERS_FILE };
  if (env.PROVIDERS_SECRET_NAME) return { kind: 'secret', name: env.PROVIDERS_SECRET_NAME };
  return null;
}

export const PROVIDERS_CACHE_SECONDS = 300;

/** The document, read fresh (file) or through Powertools' cache (secret). None configured: {}. */
export async function loadProvidersConfig(env: NodeJS.ProcessEnv = process.env): Promise<ProvidersConfig> {
  const source = providersSource(env);
  if (!source) return {};
  if (source.kind === 'file') return parseProvidersConfig(readFileSync(source.name, 'utf8'), source.name);
  const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
  const value = await getSecret(source.name, { maxAge: PROVIDERS_CACHE_SECONDS });
  return parseProvidersConfig(typeof value === 'string' ? value : Buffer.from(value ?? '').toString('utf8'), `secret ${source.name}`);
}
