/**
 * The ops CLI: merchants, API keys, webhook secrets and balance reconciliation. Works against the local
 * stack (reads .local/stack.json) or, given --table and --region, a deployed
 * stage with the caller's AWS credentials. The developer tools (listen, trigger, events tail) use only the
 * public HTTP API with an API key instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { adminService } from '../../shared/wiring';
import { isAppError } from '../../shared/domain/errors';
import { SCOPES, type Scope } from '../../shared/domain/access';
import { dlqName, queueName, queueUrlEnv } from '../../shared/manifest/queues';
import { redriveDeadLetters } from '../../shared/adapters/sqs/redrive';
import { checkUrlSyntax } from '../../shared/adapters/webhooks/ssrf-guard';
import type { CountryCode } from '../../shared/domain/geo';
import { balanceTransactionsQuery } from '../../shared/domain/ledger.schemas';
import type { CliIo } from './io';
import { balanceTransactions } from './balance';
import { effectiveLimits, limitsTable, parseLimitChanges } from './limits';
import { createApiClient, resolveTarget, TargetError } from './api-client';
import { runEventsTail } from './events-tail';
import { runListen } from './listen';
import { runTrigger, scenarioName, triggerList, unknownTrigger } from './trigger';
import { providersStats } from './provider-stats';
import { providersCheck, registerApiPixWebhook, registerEfiWebhook, stageProvidersDocument, stpSign } from './providers';
import { ROUTING_NOT_APPLIED, routingChange, routingLines } from './routing';

export type { CliIo } from './io';

export const USAGE = `Usage: npm run cli -- <command> [options]

Merchants
  merchants create --name NAME [--countries BRA,MEX] [--methods svc-mt-1,svc-mt-2] [--notification-url URL]
  merchants show MERCHANT_ID
  merchants deactivate MERCHANT_ID
  merchants activate MERCHANT_ID
  merchants limits MERCHANT_ID [--route createPayout=600 ...] [--route createPayout=default]
                                   per-route requests per minute for this merchant (default: SPEC values)
  merchants routing MERCHANT_ID --kind card|pix|pix_payout [--country BRA] --providers dlocal,adyen [--split 50,50]
  merchants routing MERCHANT_ID --kind card [--country BRA] --remove
                                   this merchant's providers, in order, for a kind in a country (* without --country),
                                   refused as the providers document's routing would be (checked against the stage's
                                   document: --secret-name NAME, or the local live stack's); without options, shows them.
                                   PIX pay-ins and PIX payouts follow it (cards: not yet routed)
API keys (only the SHA-256 of a key is stored; a new key is printed once)
  keys create MERCHANT_ID [--mode test|live] [--scopes methods:read,checkout:write]
  keys list MERCHANT_ID
  keys revoke MERCHANT_ID KEY_ID
Webhook secret (the previous secret keeps signing for 24 h)
  webhook-secret rotate MERCHANT_ID
Webhooks
  webhooks redrive [--max N]       move dead-lettered deliveries back to the webhooks queue
Balance (reconciliation)
  balance transactions MERCHANT_ID [--mode test|live] [--currency BRL] [--from ISO] [--to ISO] [--csv]
                                   the ledger newest first: created_at, id, type, amount, currency,
                                   balance_after, source_id, the source's reference_id, description
Data (run once per stage, before deploying a version that needs it)
  migrate ledger-v2 [--dry-run]    issue 22: ledger entries to the sharded ledger, payout counters to shards
  migrate listing-index [--apply] [--drop-retired]
                                   issue 31: waits for the KEYS_ONLY listing index GSI1K and checks it against GSI1;
                                   --apply creates it (and --drop-retired deletes GSI1) on a table CloudFormation
                                   does not manage (DynamoDB Local); on AWS the runbook's two deploys do that
Live providers (the stage's configuration: --providers FILE, --secret-name NAME --region R, or the local live stack's)
  providers check                  a token from each provider over mutual TLS, and its webhook registration;
                                   STP: a signed order query (its answer proves STP takes our firma)
  providers stats [--since 1h] [--kind card|pix|pix_payout] [--json]
                                   per provider and kind: attempts, approval and no-answer rates, p50/p99 latency,
                                   breaker state, over the live payments and payouts of the window (the stage's table)
  providers stp sign --cadena TEXT the base64 firma of a cadena original with the configured STP key (support cases)
  providers api-pix register-webhook [--url URL | --base-url URL]
                                   registers <base>/providers/api-pix/<webhook_token> with the PSP
  providers efi register-webhook [--url URL | --base-url URL]
                                   registers <base>/providers/efi/<webhook_token> for the Efí payer key (PIX payouts)
Developer tools (public API; --base-url URL --api-key KEY, default .local/sandbox.json)
  listen --forward-to URL [--events payment.*,payout.*] [--secret whsec_...]
                                   forward new events to URL, signed with the printed listen secret
  trigger EVENT [--json]           create test objects that emit EVENT; trigger --list shows the events
  events tail [--events GLOBS]     live log of events and their delivery attempts

Target (default: the local stack started by npm start, from .local/stack.json)
  --table NAME --region REGION     a deployed stage's table, with your AWS credentials
  --stage sandbox|live             with --region: the stage whose queues "webhooks redrive" uses
  --endpoint URL                   a DynamoDB endpoint (DynamoDB Local)
  --state-dir DIR                  where the local stack keeps stack.json (default .local)
Output
  --json                           machine-readable output
  --csv                            CSV with a header row (balance transactions)
Scopes: * (default) or any of ${SCOPES.join(', ')}`;

class UsageError extends Error {}

const list = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

/** Points shared/config at the target table before any repository is used. */
function selectTarget(v: { table?: string; region?: string; endpoint?: string; 'state-dir'?: string }) {
  if (v.table) {
    process.env.TABLE_NAME = v.table;
    if (v.region) process.env.AWS_REGION = v.region;
    if (v.endpoint) process.env.DYNAMODB_ENDPOINT = v.endpoint;
    return;
  }
  if (process.env.TABLE_NAME && process.env.DYNAMODB_ENDPOINT && !v.endpoint) return;
  const file = join(v['state-dir'] ?? '.local', 'stack.json');
  if (!existsSync(file)) {
    throw new UsageError(`No local stack found (${file}). Start it with "npm start", or pass --table and --region for a deployed stage.`);
  }
  const stack = JSON.parse(readFileSync(file, 'utf8')) as { dynamodb_endpoint: string; table_name: string; region: string };
  process.env.TABLE_NAME = stack.table_name;
  process.env.DYNAMODB_ENDPOINT = v.endpoint ?? stack.dynamodb_endpoint;
  process.env.AWS_REGION = stack.region;
}

/** The webhooks queue and its DLQ: from the local stack.json, or by name for a deployed stage. */
async function webhookQueues(v: { region?: string; stage?: string; endpoint?: string; 'state-dir'?: string }) {
  const { SQSClient, GetQueueUrlCommand } = await import('@aws-sdk/client-sqs');
  if (v.region && v.stage) {
    const sqs = new SQSClient({ region: v.region });
    const url = async (name: string) => (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl as string;
    const prefix = `latam-payments-${v.stage}`;
    return { sqs, from: await url(dlqName(prefix, 'webhooks')), to: await url(queueName(prefix, 'webhooks')) };
  }
  const file = join(v['state-dir'] ?? '.local', 'stack.json');
  if (!existsSync(file)) throw new UsageError(`No local stack found (${file}); for a deployed stage pass --region and --stage.`);
  const stack = JSON.parse(readFileSync(file, 'utf8')) as { sqs_endpoint: string; region: string; queues: Record<string, string> };
  const sqs = new SQSClient({
    region: stack.region,
    endpoint: stack.sqs_endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return { sqs, from: stack.queues[`${queueUrlEnv('webhooks')}_DLQ`] as string, to: stack.queues[queueUrlEnv('webhooks')] as string };
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        countries: { type: 'string' },
        methods: { type: 'string' },
        'notification-url': { type: 'string' },
        mode: { type: 'string', default: 'test' },
        scopes: { type: 'string' },
        table: { type: 'string' },
        region: { type: 'string' },
        endpoint: { type: 'string' },
        'state-dir': { type: 'string' },
        json: { type: 'boolean', default: false },
        stage: { type: 'string' },
        max: { type: 'string' },
        currency: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        csv: { type: 'boolean', default: false },
        route: { type: 'string', multiple: true },
        'forward-to': { type: 'string' },
        events: { type: 'string' },
        secret: { type: 'string' },
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        providers: { type: 'string' },
        'secret-name': { type: 'string' },
        url: { type: 'string' },
        cadena: { type: 'string' },
        list: { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        apply: { type: 'boolean', default: false },
        'drop-retired': { type: 'boolean', default: false },
        kind: { type: 'string' },
        country: { type: 'string' },
        split: { type: 'string' },
        remove: { type: 'boolean', default: false },
        since: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    io.err(`${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const {
    values: v,
    positionals: [group, action, ...args],
  } = parsed;
  if (v.help || !group) {
    io.out(USAGE);
    return v.help ? 0 : 2;
  }
  const print = (json: unknown, human: string) => io.out(v.json ? JSON.stringify(json, null, 2) : human);
  const need = (i: number, what: string) => {
    const value = args[i];
    if (!value) throw new UsageError(`Missing ${what}.`);
    return value;
  };

  if (group === 'listen' || group === 'trigger' || (group === 'events' && action === 'tail')) return devTool(group, action, v, io);
  if (group === 'providers' && action === 'stats') {
    try {
      selectTarget(v);
      return await providersStats({ since: v.since, kind: v.kind, json: v.json }, io);
    } catch (e) {
      io.err(`Error: ${(e as Error).message}`);
      return e instanceof UsageError ? 2 : 1;
    }
  }
  if (group === 'providers') {
    const o = {
      providers: v.providers,
      secretName: v['secret-name'],
      region: v.region,
      stateDir: v['state-dir'],
      url: v.url,
      baseUrl: v['base-url'],
      cadena: v.cadena,
    };
    try {
      if (action === 'check') return await providersCheck(o, io);
      if (action === 'api-pix' && args[0] === 'register-webhook') return await registerApiPixWebhook(o, io);
      if (action === 'efi' && args[0] === 'register-webhook') return await registerEfiWebhook(o, io);
      if (action === 'stp' && args[0] === 'sign') return await stpSign(o, io);
      io.err(`Unknown providers command.\n\n${USAGE}`);
      return 2;
    } catch (e) {
      io.err(`Error: ${(e as Error).message}`);
      return 1;
    }
  }
  try {
    selectTarget(v);
    const admin = adminService();
    switch (`${group} ${action ?? ''}`.trim()) {
      case 'merchants create': {
        if (!v.name) throw new UsageError('merchants create needs --name.');
        if (v['notification-url'])
          checkUrlSyntax(v['notification-url'], {
            requireHttps: false,
            allowLoopback: process.env.WEBHOOK_ALLOW_LOOPBACK === 'true' || !v.table,
          });
        const r = await admin.createMerchant({
          name: v.name,
          countries: list(v.countries) as CountryCode[] | undefined,
          methods: list(v.methods),
          notification_url: v['notification-url'] ?? null,
        });
        print(
          {
            merchant_id: r.merchant.merchant_id,
            name: r.merchant.name,
            api_key: r.apiKey.secret,
            key_id: r.apiKey.key.key_id,
            webhook_secret: r.webhookSecret,
          },
          [
            `Merchant created: ${r.merchant.merchant_id} (${r.merchant.name})`,
            `API key (shown once):        ${r.apiKey.secret}   [${r.apiKey.key.key_id}]`,
            `Webhook secret (shown once): ${r.webhookSecret}`,
          ].join('\n'),
        );
        return 0;
      }
      case 'merchants show': {
        const m = await admin.getMerchant(need(0, 'MERCHANT_ID'));
        print(
          m,
          [
            `${m.merchant_id}  ${m.name}  ${m.status}`,
            `countries: ${m.countries.join(', ')}`,
            `methods: ${m.methods.join(', ')}`,
            `notification_url: ${m.notification_url ?? '-'}`,
            `routing (${ROUTING_NOT_APPLIED}):`,
            ...routingLines(m),
          ].join('\n'),
        );
        return 0;
      }
      case 'merchants deactivate':
      case 'merchants activate': {
        const status = action === 'activate' ? 'active' : 'inactive';
        const m = await admin.setStatus(need(0, 'MERCHANT_ID'), status);
        print({ merchant_id: m.merchant_id, status: m.status }, `${m.merchant_id} is now ${m.status}.`);
        return 0;
      }
      case 'merchants limits': {
        const id = need(0, 'MERCHANT_ID');
        let changes: Record<string, number | null>;
        try {
          changes = parseLimitChanges(v.route ?? []);
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
        const m = Object.keys(changes).length ? await admin.setRateLimits(id, changes) : await admin.getMerchant(id);
        const rows = effectiveLimits(m);
        print({ merchant_id: m.merchant_id, limits: rows }, `${m.merchant_id} rate limits\n${limitsTable(rows)}`);
        return 0;
      }
      case 'merchants routing': {
        const id = need(0, 'MERCHANT_ID');
        const input = { kind: v.kind, country: v.country, providers: v.providers, split: v.split, remove: v.remove };
        // Checked against the stage's providers document where there is one (is each provider configured?), else statically.
        const document =
          input.providers !== undefined
            ? await stageProvidersDocument({ secretName: v['secret-name'], region: v.region, stateDir: v['state-dir'] })
            : null;
        const change = routingChange(input, document?.cfg ?? null);
        if ('problems' in change) throw new UsageError(change.problems.join('\n'));
        const r =
          change.action === 'show'
            ? { merchant: await admin.getMerchant(id), changed: false }
            : await admin.setRoutingRule(id, change.kind, change.country, change.action === 'set' ? change.rule : null);
        const m = r.merchant;
        const checked = document ? `against ${document.source}` : 'without a providers document: not whether each provider is configured';
        const what =
          change.action === 'set'
            ? `Set ${change.kind} ${change.country} (checked ${checked}).\n`
            : change.action === 'remove'
              ? r.changed
                ? `Removed ${change.kind} ${change.country}.\n`
                : `${m.merchant_id} had no ${change.kind} ${change.country} rule.\n`
              : '';
        print(
          { merchant_id: m.merchant_id, routing: m.routing ?? {}, changed: r.changed, checked_against: document?.source ?? null },
          `${what}${m.merchant_id} routing (${ROUTING_NOT_APPLIED}):\n${routingLines(m).join('\n')}`,
        );
        return 0;
      }
      case 'keys create': {
        if (v.mode !== 'test' && v.mode !== 'live') throw new UsageError('--mode must be test or live.');
        const scopes = list(v.scopes) ?? ['*'];
        const bad = scopes.find((s) => s !== '*' && !(SCOPES as readonly string[]).includes(s));
        if (bad) throw new UsageError(`Unknown scope ${bad}.`);
        const k = await admin.createKey(need(0, 'MERCHANT_ID'), v.mode, scopes as (Scope | '*')[]);
        print(
          { key_id: k.key.key_id, api_key: k.secret, mode: k.key.mode, scopes: k.key.scopes },
          `API key (shown once): ${k.secret}\nkey id: ${k.key.key_id}  mode: ${k.key.mode}  scopes: ${k.key.scopes.join(',')}`,
        );
        return 0;
      }
      case 'keys list': {
        const keys = await admin.listKeys(need(0, 'MERCHANT_ID'));
        print(
          keys,
          keys.map((k) => `${k.key_id}  ${k.hint}  ${k.mode}  ${k.status}  ${k.scopes.join(',')}  ${k.created_at}`).join('\n') ||
            'No keys.',
        );
        return 0;
      }
      case 'keys revoke': {
        const k = await admin.revokeKey(need(0, 'MERCHANT_ID'), need(1, 'KEY_ID'));
        print({ key_id: k.key_id, status: k.status, revoked_at: k.revoked_at }, `Key ${k.key_id} revoked.`);
        return 0;
      }
      case 'webhook-secret rotate': {
        const r = await admin.rotateWebhookSecret(need(0, 'MERCHANT_ID'));
        print(
          { webhook_secret: r.webhookSecret, previous_expires_at: r.previousExpiresAt },
          `New webhook secret (shown once): ${r.webhookSecret}\nThe previous secret also signs until ${r.previousExpiresAt}.`,
        );
        return 0;
      }
      case 'webhooks redrive': {
        const { sqs, from, to } = await webhookQueues(v);
        const r = await redriveDeadLetters(sqs, from, to, Number(v.max ?? 1000));
        print(
          r,
          `Moved ${r.moved} dead-lettered delivery(ies) back to the webhooks queue` +
            `${r.skipped ? `; ${r.skipped} unreadable message(s) left in the DLQ` : ''}.`,
        );
        return 0;
      }
      case 'migrate ledger-v2': {
        const { migrateLedgerV2 } = await import('../../shared/adapters/dynamodb/migrations/ledger-v2');
        const { documentClient } = await import('../../shared/adapters/aws-clients');
        const r = await migrateLedgerV2(documentClient(), String(process.env.TABLE_NAME), { dryRun: v['dry-run'] });
        const verb = v['dry-run'] ? 'To move' : 'Moved';
        print(
          r,
          `${verb}: ${r.ledgerEntries} ledger entries, ${r.counters} payout counters items (${r.alreadyMoved} found moved already).`,
        );
        return 0;
      }
      case 'migrate listing-index': {
        const { migrateListingIndex } = await import('../../shared/adapters/dynamodb/migrations/listing-index');
        const { dynamoClient } = await import('../../shared/adapters/aws-clients');
        const r = await migrateListingIndex(dynamoClient(), String(process.env.TABLE_NAME), {
          apply: v.apply,
          dropRetired: v['drop-retired'],
          pollMs: process.env.DYNAMODB_ENDPOINT ? 200 : 10_000,
          log: v.json ? undefined : (line) => io.out(line),
        });
        const counts = r.counts ? ` ${r.index}: ${r.counts.listing} entries, ${r.retired}: ${r.counts.retired}.` : '';
        print(
          r,
          !r.ready
            ? `${r.index} does not exist: deploy with -c keepRetiredIndexes=true first (or --apply on a local table).`
            : `${r.index} is ${r.status} (${r.projection}).${counts}` +
                (r.retiredDropped ? ` ${r.retired} deleted.` : r.counts ? ` ${r.retired} is still there.` : ''),
        );
        return r.ready ? 0 : 1;
      }
      case 'balance transactions': {
        if (v.mode !== 'test' && v.mode !== 'live') throw new UsageError('--mode must be test or live.');
        const filters = balanceTransactionsQuery.safeParse({ currency: v.currency, from_date: v.from, to_date: v.to });
        if (!filters.success) {
          const flag: Record<string, string> = { from_date: '--from', to_date: '--to', currency: '--currency' };
          const issue = filters.error.issues[0]!;
          throw new UsageError(`${flag[String(issue.path[0])] ?? String(issue.path[0])}: ${issue.message}`);
        }
        const merchant = await admin.getMerchant(need(0, 'MERCHANT_ID'));
        const { currency, from_date, to_date } = filters.data;
        await balanceTransactions(
          { merchantId: merchant.merchant_id, mode: v.mode },
          { currency, from_date, to_date },
          v.csv ? 'csv' : v.json ? 'json' : 'text',
          io.out,
        );
        return 0;
      }
      default:
        throw new UsageError(`Unknown command "${[group, action].filter(Boolean).join(' ')}".`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`${e.message}\n\n${USAGE}`);
      return 2;
    }
    io.err(isAppError(e) ? `Error: ${e.message}` : `Error: ${(e as Error).message ?? String(e)}`);
    return 1;
  }
}

/** listen, trigger and events tail: the public API with a key, stopped by SIGINT / SIGTERM. */
async function devTool(
  group: string,
  action: string | undefined,
  v: { json?: boolean; list?: boolean; events?: string; secret?: string } & Record<string, string | boolean | string[] | undefined>,
  io: CliIo,
): Promise<number> {
  if (group === 'trigger' && v.list) {
    io.out(triggerList());
    return 0;
  }
  if (group === 'trigger' && !scenarioName(action)) {
    io.err(unknownTrigger(action));
    return 2;
  }
  const stop = new AbortController();
  const abort = () => stop.abort();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  try {
    const str = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
    const client = createApiClient(resolveTarget({ baseUrl: str('base-url'), apiKey: str('api-key'), stateDir: str('state-dir') }));
    const common = { client, signal: stop.signal, io };
    if (group === 'trigger') return await runTrigger({ ...common, event: action, json: Boolean(v.json) });
    if (group === 'events') return await runEventsTail({ ...common, events: v.events });
    if (!str('forward-to')) throw new TargetError('listen needs --forward-to URL.');
    return await runListen({ ...common, forwardTo: str('forward-to') as string, events: v.events, secret: v.secret });
  } catch (e) {
    if (e instanceof TargetError) {
      io.err(`${e.message}\n\n${USAGE}`);
      return 2;
    }
    io.err(`Error: ${(e as Error).message}`);
    return 1;
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  }
}
