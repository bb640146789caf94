/**
 * `providers check`, `providers api-pix register-webhook`, `providers efi register-webhook` and `providers stp sign`:
 * the live providers of a stage, from its configuration (a file, the stage's secret, or the local live stack's
 * file), exercised the way the functions use them: a token obtained over mutual TLS and the webhook registration
 * read back (API Pix, Efí), a signed order query (STP), a signed read-back of an order that cannot exist and a
 * payouts token with a payout query (dLocal).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildLiveProviders, type LiveProviders } from '../../shared/adapters/providers/live-connectors';
import { efiLive } from '../../shared/adapters/providers/efi/efi.payout-port';
import {
  loadProvidersConfig,
  parseProvidersConfig,
  type ProvidersConfig,
  type StpConfig,
} from '../../shared/adapters/providers/providers.config';
import { ProviderRejected, ProviderUnavailable } from '../../shared/application/providers';
import { stpConnectors } from '../../shared/adapters/providers/stp/stp.connector';
import { stpSigner } from '../../shared/adapters/providers/stp/stp.signer';
import type { CliIo } from './io';
import { LIVE_METHODS, servedWallets } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { PIX_METHOD_ID } from '../../shared/adapters/providers/dlocal/dlocal.pix-payin-schemas';
import type { CountryCode } from '../../shared/domain/geo';
import type { WalletChoice } from '../../shared/domain/payments/methods';

export interface ProvidersOptions {
  readonly providers?: string;
  readonly secretName?: string;
  readonly region?: string;
  readonly stateDir?: string;
  readonly url?: string;
  readonly baseUrl?: string;
  /** `providers stp sign`: the cadena original to sign. */
  readonly cadena?: string;
}

interface LocalStackFile {
  base_url?: string;
  providers_file?: string;
}

function localStack(stateDir = '.local'): LocalStackFile | null {
  const file = join(stateDir, 'stack.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LocalStackFile) : null;
}

/** The document and where it came from: --providers FILE, --secret-name NAME (with --region), or the local live stack's file. */
export async function providersDocument(o: ProvidersOptions): Promise<{ cfg: ProvidersConfig; source: string }> {
  if (o.providers) return { cfg: parseProvidersConfig(readFileSync(o.providers, 'utf8'), o.providers), source: o.providers };
  if (o.secretName) {
    if (o.region) process.env.AWS_REGION = o.region;
    return { cfg: await loadProvidersConfig({ PROVIDERS_SECRET_NAME: o.secretName }), source: `secret ${o.secretName}` };
  }
  const file = localStack(o.stateDir)?.providers_file;
  if (!file)
    throw new Error('No providers configuration: pass --providers FILE, or --secret-name NAME --region REGION for a deployed stage.');
  return { cfg: parseProvidersConfig(readFileSync(file, 'utf8'), file), source: file };
}

/**
 * The stage's providers document when one is named (--secret-name NAME, or the local live stack's file), else null:
 * for commands that check against it where there is one (`merchants routing`), never a --providers FILE, which
 * there names the providers.
 */
export async function stageProvidersDocument(o: Pick<ProvidersOptions, 'secretName' | 'region' | 'stateDir'>) {
  if (!o.secretName && !localStack(o.stateDir)?.providers_file) return null;
  return providersDocument({ secretName: o.secretName, region: o.region, stateDir: o.stateDir });
}

const why = (e: unknown) =>
  e instanceof ProviderUnavailable ? e.reason : e instanceof ProviderRejected ? `refused (${e.status} ${e.code})` : (e as Error).message;

/** A webhook URL with its token shown only by its first characters. */
const masked = (url: string) => url.replace(/(\/providers\/[a-z-]+\/)([A-Za-z0-9_-]{6})[A-Za-z0-9_-]+/, '$1$2…');

export async function providersCheck(o: ProvidersOptions, io: CliIo): Promise<number> {
  const { cfg, source } = await providersDocument(o);
  const live = buildLiveProviders(cfg);
  io.out(`Providers configuration: ${source}`);
  let failures = 0;
  const configured = Object.keys(cfg).filter((k) => k !== 'routing'); // routing is no provider
  if (configured.length === 0) io.out('  none configured: every live payment answers METHOD_NOT_AVAILABLE');
  if (cfg.stp) failures += await checkStp(cfg.stp, io);
  if (live.adyen && cfg.adyen) {
    // No call is made: Adyen has no side-effect-free authenticated endpoint in the subset we use.
    io.out(
      `  adyen: configured for live cards (merchant account ${cfg.adyen.merchant_account}); ` +
        'notifications go to <base>/providers/adyen/notifications (set the HMAC key in the Customer Area)',
    );
    live.adyen.client.close();
  }
  if (live.efi && cfg.efi) failures += await checkEfi(live.efi, cfg.efi.token_url, cfg.efi.pix_key, io);
  if (live.dlocal) failures += await checkDlocalPayouts(live.dlocal, io);
  if (live.apiPix && cfg.api_pix) {
    try {
      await live.apiPix.client.token();
      io.out(`  api_pix: token obtained from ${cfg.api_pix.token_url} over mutual TLS`);
      const hook = await live.apiPix.webhooks.get();
      io.out(
        hook
          ? `  api_pix: webhook registered for key ${cfg.api_pix.pix_key}: ${masked(hook.webhookUrl)}`
          : '  api_pix: NO webhook registered (run: providers api-pix register-webhook)',
      );
      if (!hook) failures++;
      if (live.apiPix.recurrence) {
        const rec = await live.apiPix.recurrence.webhooks.get();
        io.out(
          rec.rec && rec.cobr
            ? `  api_pix: Pix Automático webhooks registered: ${masked(rec.rec)} (+ /rec), ${masked(rec.cobr)} (+ /cobr)`
            : '  api_pix: Pix Automático webhooks NOT registered (webhookrec/webhookcobr; run: providers api-pix register-webhook)',
        );
        if (!rec.rec || !rec.cobr) failures++;
      }
    } catch (e) {
      io.out(`  api_pix: FAILED: ${why(e)}`);
      failures++;
    } finally {
      live.apiPix.client.close();
    }
  }
  if (live.dlocal && cfg.dlocal) {
    // A signed read-back of an order that does not exist: dLocal answers "not found" only once the signature passed.
    try {
      const probe = `pi_${randomBytes(16).toString('base64url')}`;
      const state = await live.dlocal.payments.get(probe);
      io.out(
        !('outcome' in state)
          ? `  dlocal: signed read-back answered by ${cfg.dlocal.base_url} (signature accepted); ` +
              'notifications go to <base>/providers/dlocal/notifications'
          : '  dlocal: FAILED: dLocal holds a payment for a random order (unexpected)',
      );
      if ('outcome' in state) failures++;
      // dLocal's card payment request has no chargeback URL: it notifies the one registered with dLocal for the merchant.
      io.out(
        '  dlocal: chargebacks of dLocal card payments: register <base>/providers/dlocal/chargebacks as the merchant ' +
          'chargeback notification URL with dLocal (no request carries it; nothing here can check it)',
      );
      failures += await checkDlocalMethods(live.dlocal.payments, cfg.dlocal.wallets, io);
    } catch (e) {
      io.out(`  dlocal: FAILED: ${why(e)}`);
      failures++;
    } finally {
      live.dlocal.client.close();
    }
  }
  if (live.binancePay && cfg.binance_pay) failures += await checkBinancePay(live.binancePay, cfg.binance_pay.base_url, io);
  return failures ? 1 : 0;
}

/**
 * Each payment_method_id we would send (LIVE_METHODS, the served wallets, Pix) against the account's own method list
 * (dLocal's GET /payments-methods?country=): an id the account does not list would make every such payment fail, so
 * it fails the check, naming the method code and what dLocal lists instead.
 */
async function checkDlocalMethods(
  payments: NonNullable<LiveProviders['dlocal']>['payments'],
  wallets: readonly WalletChoice[] | undefined,
  io: CliIo,
): Promise<number> {
  const byCountry = new Map<CountryCode, Array<{ code: string; id: string; flow: string }>>();
  for (const [code, m] of Object.entries(LIVE_METHODS)) {
    const ids = m.wallets ? servedWallets(m, wallets).map((w) => m.wallets![w]) : [m.paymentMethodId];
    for (const id of ids) byCountry.set(m.country, [...(byCountry.get(m.country) ?? []), { code, id, flow: m.flow }]);
  }
  // PIX pay-ins (svc-mt-1), a PIX rail of dLocal's beside the API Pix PSPs (dlocal.pix-payins.ts): Pix, DIRECT.
  byCountry.set('BRA', [...(byCountry.get('BRA') ?? []), { code: 'svc-mt-1', id: PIX_METHOD_ID, flow: 'DIRECT' }]);
  let failures = 0;
  for (const [country, ours] of byCountry) {
    const listed = await payments.listMethods(country);
    const missing = ours.filter((o) => !listed.some((l) => l.id === o.id && (!l.allowed_flows || l.allowed_flows.includes(o.flow))));
    if (missing.length === 0) {
      io.out(`  dlocal: ${country} methods listed by the account: ${ours.map((o) => `${o.code} ${o.id}`).join(', ')}`);
      continue;
    }
    failures++;
    const theirs = listed.map((l) => `${l.id}${l.name ? ` (${l.name})` : ''}`).join(', ') || 'none';
    io.out(
      `  dlocal: FAILED: ${country}: the account lists no ${missing.map((o) => `${o.id} ${o.flow} for ${o.code}`).join(', ')}; ` +
        `its methods: ${theirs}. Those payments would fail: correct LIVE_METHODS (dlocal.transformers.ts) or the account.`,
    );
  }
  return failures;
}

/** A signed query of an order that cannot exist: Binance Pay answers "not found" only once the signature passed. */
async function checkBinancePay(bp: NonNullable<LiveProviders['binancePay']>, baseUrl: string, io: CliIo): Promise<number> {
  try {
    const state = await bp.payments.get(`pi_${randomBytes(16).toString('base64url')}`);
    if ('outcome' in state) {
      io.out('  binance_pay: FAILED: Binance Pay holds an order for a random merchantTradeNo (unexpected)');
      return 1;
    }
    io.out(
      `  binance_pay: signed order query answered by ${baseUrl} (signature accepted); crypto (svc-mt-4) live; ` +
        'notifications go to <base>/providers/binance-pay/notifications',
    );
    return 0;
  } catch (e) {
    io.out(`  binance_pay: FAILED: ${why(e)}`);
    return 1;
  } finally {
    bp.close();
  }
}

export async function registerApiPixWebhook(o: ProvidersOptions, io: CliIo): Promise<number> {
  const { cfg } = await providersDocument(o);
  if (!cfg.api_pix) throw new Error('api_pix is not configured.');
  const base = (o.baseUrl ?? localStack(o.stateDir)?.base_url ?? '').replace(/\/$/, '');
  const url = o.url ?? (base ? `${base}/providers/api-pix/${cfg.api_pix.webhook_token}` : '');
  if (!url) throw new Error("Pass --url URL or --base-url URL (the stage's public base URL).");
  const live = buildLiveProviders(cfg);
  const apiPix = live.apiPix as NonNullable<typeof live.apiPix>;
  try {
    await apiPix.webhooks.register(url);
    const hook = await apiPix.webhooks.get();
    if (hook?.webhookUrl !== url) {
      io.err(`The PSP did not keep the URL: it answers ${hook ? masked(hook.webhookUrl) : 'no webhook'}.`);
      return 1;
    }
    io.out(`Registered ${masked(url)} for key ${cfg.api_pix.pix_key}; the PSP posts each Pix to ${masked(url)}/pix.`);
    if (apiPix.recurrence) {
      // With `recebedor`, register() also set webhookrec and webhookcobr to the same URL.
      const rec = await apiPix.recurrence.webhooks.get();
      if (rec.rec !== url || rec.cobr !== url) {
        const shown = (u: string | null) => (u ? masked(u) : 'none');
        io.err(`The PSP did not keep the Pix Automático URLs: webhookrec ${shown(rec.rec)}, webhookcobr ${shown(rec.cobr)}.`);
        return 1;
      }
      io.out(`Pix Automático: the PSP posts recurrences to ${masked(url)}/rec and recurring charges to ${masked(url)}/cobr.`);
    }
    return 0;
  } catch (e) {
    io.err(`Error: ${why(e)}`);
    return 1;
  } finally {
    apiPix.client.close();
  }
}

/**
 * STP: a signed query of an order that does not exist. STP answers "not found" only after it has checked the
 * firma, so that answer proves the address, the TLS trust, the company and the key; anything else fails.
 */
/** Efí: a token over mutual TLS, and the payer key's webhook (Efí requires one before it takes a send). */
async function checkEfi(efi: NonNullable<LiveProviders['efi']>, tokenUrl: string, pixKey: string, io: CliIo): Promise<number> {
  try {
    await efi.client.token();
    io.out(`  efi: token obtained from ${tokenUrl} over mutual TLS`);
    const hook = await efi.webhooks.get();
    io.out(
      hook
        ? `  efi: webhook registered for key ${pixKey}: ${masked(hook.webhookUrl)} (PIX payouts svc-mt-5 live)`
        : '  efi: NO webhook registered: Efí takes no send without one (run: providers efi register-webhook)',
    );
    return hook ? 0 : 1;
  } catch (e) {
    io.out(`  efi: FAILED: ${why(e)}`);
    return 1;
  } finally {
    efi.client.close();
  }
}

/**
 * dLocal payouts: a payouts token, and a query of a payout that cannot exist (not found proves the token works).
 * The client is closed by the pay-ins check that runs after it.
 */
async function checkDlocalPayouts(dlocal: NonNullable<LiveProviders['dlocal']>, io: CliIo): Promise<number> {
  try {
    if (!dlocal.payoutPort) {
      io.out('  dlocal: no payouts block: bank-transfer payouts (svc-mt-6, svc-mt-31, svc-mt-32) are not offered live');
      return 0;
    }
    const state = await dlocal.payoutPort.payouts.get(`do${'0'.repeat(32)}`);
    if (state.kind !== 'not_found') {
      io.out('  dlocal: FAILED: dLocal holds a payout for the probe external_id (unexpected)');
      return 1;
    }
    io.out('  dlocal: payouts token obtained and a payout query answered (bank-transfer payouts live)');
    return 0;
  } catch (e) {
    io.out(`  dlocal: FAILED (payouts): ${why(e)}`);
    return 1;
  }
}

/** `providers efi register-webhook`: <base>/providers/efi/<webhook_token> for the payer key (Efí posts to it + /pix). */
export async function registerEfiWebhook(o: ProvidersOptions, io: CliIo): Promise<number> {
  const { cfg } = await providersDocument(o);
  if (!cfg.efi) throw new Error('efi is not configured.');
  const base = (o.baseUrl ?? localStack(o.stateDir)?.base_url ?? '').replace(/\/$/, '');
  const url = o.url ?? (base ? `${base}/providers/efi/${cfg.efi.webhook_token}` : '');
  if (!url) throw new Error("Pass --url URL or --base-url URL (the stage's public base URL).");
  const efi = efiLive(cfg.efi);
  try {
    await efi.webhooks.register(url);
    const hook = await efi.webhooks.get();
    if (hook?.webhookUrl !== url) {
      io.err(`Efí did not keep the URL: it answers ${hook ? masked(hook.webhookUrl) : 'no webhook'}.`);
      return 1;
    }
    io.out(`Registered ${masked(url)} for key ${cfg.efi.pix_key}; Efí posts each send's outcome to ${masked(url)}/pix.`);
    return 0;
  } catch (e) {
    io.err(`Error: ${why(e)}`);
    return 1;
  } finally {
    efi.client.close();
  }
}

async function checkStp(cfg: StpConfig, io: CliIo): Promise<number> {
  let live: ReturnType<typeof stpConnectors> | null = null;
  try {
    live = stpConnectors(cfg);
    const probe = `LPCHECK${Date.now()}`;
    const state = await live.speiPayouts.get(probe);
    if (state.kind !== 'not_found') {
      io.out(`  stp: FAILED: STP holds an order ${probe} (unexpected)`);
      return 1;
    }
    io.out(`  stp: signed order query answered by ${cfg.base_url} for empresa ${cfg.empresa} (firma accepted)`);
    return 0;
  } catch (e) {
    io.out(`  stp: FAILED: ${why(e)}`);
    return 1;
  } finally {
    live?.client.close();
  }
}

/** `providers stp sign --cadena TEXT`: the firma STP would expect for that cadena, for support cases. */
export async function stpSign(o: ProvidersOptions, io: CliIo): Promise<number> {
  if (o.cadena === undefined || o.cadena === '') throw new Error('Pass --cadena TEXT (the cadena original, between || and ||).');
  const { cfg } = await providersDocument(o);
  if (!cfg.stp) throw new Error('stp is not configured.');
  io.out(stpSigner(cfg.stp.private_key_pem, cfg.stp.private_key_passphrase).sign(o.cadena));
  return 0;
}
