/**
 * docs/operations.md is real: every `npm run cli -- ...` line of its code blocks runs, in the runbook's order,
 * against a local copy of the service standing in for the deployed stage (its own table on DynamoDB Local,
 * the stage's queues by their deployed names on the SQS emulator), and every `npx cdk ...` line uses options
 * the CDK CLI accepts (its own `--help`), context keys the app reads, and a stage and stacks the app
 * synthesizes: each distinct context built as bin/app.ts builds it (cdk.json's context plus the line's, the
 * stage parsed, the cdk-nag packs; bundling skipped) with no nag error, and the richest one also through
 * cdk.json's app command exactly as `cdk` runs it. Blocks with commands that need an AWS account say "not
 * exercised offline" under them, and the numbers the protection section states are the configured ones.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueUrlCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { App } from 'aws-cdk-lib';
import { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { runCli, USAGE } from '../../bin/cli/run';
import { scenarioName } from '../../bin/cli/trigger';
import { DEFAULT_RATE_LIMIT_PER_IP, RATE_WINDOW_SECONDS } from '../../lib/edge-protection';
import { EDGE_CONTEXT_KEYS } from '../../lib/edge-stack';
import { buildApp, PUBLIC_BASE_URL_CONTEXT } from '../../lib/app';
import { applyNagPacks } from '../../lib/nag';
import { parseStage, STAGES, stageConfig } from '../../lib/stage-config';
import { ensureQueues } from '../../bin/local/services';
import { MAX_BODY_BYTES } from '../../shared/http/middleware/validation';
import { dlqName, queueName } from '../../shared/manifest/queues';
import { ROUTES } from '../../shared/manifest/routes';
import type { RouteDefinition } from '../../shared/manifest/route-types';
import { engines } from '../support/engines';
import { startTestStack, type TestStack } from '../support/test-stack';

const ROOT = join(__dirname, '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');

interface Block {
  readonly lines: { text: string; line: number }[];
  /** Markdown after the block, up to the next block or heading. */
  readonly after: string;
}

/** The fenced code blocks, with `\`-continued lines joined. */
function codeBlocks(markdown: string): Block[] {
  const all = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < all.length; i++) {
    if (!all[i]!.startsWith('```')) continue;
    const lines: { text: string; line: number }[] = [];
    let j = i + 1;
    for (; j < all.length && !all[j]!.startsWith('```'); j++) {
      const prev = lines.at(-1);
      if (prev && prev.text.endsWith('\\')) prev.text = `${prev.text.slice(0, -1)} ${all[j]!.trim()}`;
      else lines.push({ text: all[j]!.trim(), line: j + 1 });
    }
    let k = j + 1;
    while (k < all.length && !all[k]!.startsWith('```') && !all[k]!.startsWith('#')) k++;
    blocks.push({ lines, after: all.slice(j + 1, k).join('\n') });
    i = j;
  }
  return blocks;
}

/**
 * The words bash passes for one command line: single and double quotes, backslashes, `$VAR` / `${VAR}` from
 * `vars` (an unknown variable fails), `#` starting a comment. Pipes, redirections and `$(...)` are refused:
 * a runbook command that can be checked is one plain command.
 */
export function shellWords(line: string, vars: Readonly<Record<string, string>>): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const expand = () => {
    const m = /^\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))/.exec(line.slice(i));
    if (!m) throw new Error(`"$" that is not a plain variable in: ${line}`);
    const name = (m[1] ?? m[2])!;
    if (!(name in vars)) throw new Error(`$${name} has no test value (add it to VARS) in: ${line}`);
    i += m[0].length;
    return vars[name]!;
  };
  while (i < line.length) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      word += line.slice(i + 1, end);
      i = end + 1;
      inWord = true;
    } else if (c === '"') {
      i++;
      inWord = true;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && '"$\\`'.includes(line[i + 1] ?? '')) {
          word += line[i + 1];
          i += 2;
        } else if (line[i] === '$') word += expand();
        else if (line[i] === '`') throw new Error(`command substitution in: ${line}`);
        else word += line[i++];
      }
      if (line[i] !== '"') throw new Error(`unterminated " in: ${line}`);
      i++;
    } else if (c === '\\') {
      word += line[i + 1] ?? '';
      i += 2;
      inWord = true;
    } else if (c === '$') {
      word += expand();
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else if (c === '#' && !inWord) {
      break;
    } else if ('|;&<>()`'.includes(c)) {
      throw new Error(`shell operator ${c} in a runbook command: ${line}`);
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

const blocks = codeBlocks(DOC);
const commandLines = (prefix: string) =>
  blocks.flatMap((b) => b.lines.filter((l) => l.text.startsWith(prefix)).map((l) => ({ ...l, rest: l.text.slice(prefix.length) })));
const CLI_LINES = commandLines('npm run cli -- ');
const CDK_LINES = commandLines('npx cdk ');

describe('docs/operations.md', () => {
  test('has the sections the issue asks for, the alarms section filled in', () => {
    const headings = DOC.split('\n').filter((l) => l.startsWith('## '));
    for (const h of [
      '## Prerequisites and `cdk bootstrap`',
      '## Deploying a stage',
      '## The outputs and what each is for',
      '## The first merchant and its API keys',
      '## Rotating a webhook secret',
      '## Rotating an API key',
      '## Redriving a dead-letter queue',
      '## Per-merchant limits',
      "## The API's protection",
      '## Restoring the table from point-in-time recovery',
      '## Tearing the sandbox down',
      '## Alarms: what each means and what to do',
    ])
      expect(headings).toContain(h);
    // The alarm table's thresholds are checked against lib/stage-config.ts by test/infra/monitoring.test.ts.
    expect(DOC).not.toContain('<!-- alarms:');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('](docs/operations.md)');
  });

  test('covers the ops commands and the deploy commands it is meant to', () => {
    const cli = new Set(CLI_LINES.map((l) => shellWords(l.rest, VARS).slice(0, 2).join(' ')));
    for (const c of [
      'merchants create',
      'merchants show',
      'merchants limits',
      'keys create',
      'keys list',
      'keys revoke',
      'webhook-secret rotate',
      'webhooks redrive',
      'trigger payment.success',
    ])
      expect(cli).toContain(c);
    const cdk = CDK_LINES.map((l) => l.rest);
    expect(cdk.filter((c) => c.startsWith('bootstrap'))).toHaveLength(2);
    for (const stage of STAGES) expect(cdk).toContainEqual(expect.stringMatching(new RegExp(`^deploy .*--all.* -c stage=${stage}\\b`)));
    expect(cdk).toContainEqual(expect.stringMatching(/^destroy --all -c stage=sandbox\b/));
  });

  test('every block with a command that needs an AWS account says "not exercised offline" under it', () => {
    const needsAccount = /^(aws |npx cdk (bootstrap|deploy|destroy|diff)\b)/;
    const unmarked = blocks
      .filter((b) => b.lines.some((l) => needsAccount.test(l.text)))
      .filter((b) => !/not exercised offline/i.test(b.after))
      .map((b) => `line ${b.lines[0]!.line}: ${b.lines[0]!.text}`);
    expect(unmarked).toEqual([]);
  });

  test('the numbers it states are the configured ones', () => {
    for (const stage of STAGES) {
      const { rateLimit, burstLimit } = stageConfig(stage).apiThrottle;
      expect(DOC).toContain(`| ${stage} | ${rateLimit} | ${burstLimit} |`);
    }
    expect(DOC).toContain(`over ${MAX_BODY_BYTES / 1024} KB (${MAX_BODY_BYTES.toLocaleString('en-US')} bytes`);
    expect(DOC).toContain(`must be at most ${MAX_BODY_BYTES} bytes`);
    expect(DOC).toContain(`more than ${DEFAULT_RATE_LIMIT_PER_IP} requests per client IP per ${RATE_WINDOW_SECONDS} seconds`);
    const routes = ROUTES as readonly RouteDefinition[];
    const stated = [...DOC.matchAll(/`(\w+)` (\d+)\/min/g)].map((m) => [m[1], Number(m[2])]);
    expect(stated.length).toBeGreaterThanOrEqual(8);
    expect(stated).toEqual(stated.map(([id]) => [id, routes.find((r) => r.id === id)?.rateLimitPerMinute]));
    for (const stage of STAGES) expect(`latam-payments-${stage}`).toBe(stageConfig(stage).tableName);
    expect(DOC).toContain('export TABLE=latam-payments-$STAGE');
  });
});

// ---- the CLI lines, run in order against the test stack ----

/** Values the runbook's shell variables take here; filled in beforeAll. */
const VARS: Record<string, string> = {
  STAGE: `rb${Date.now().toString(36)}`,
  REGION: 'us-east-1',
  ACCOUNT: '111122223333',
  TABLE: 'table-set-in-beforeAll',
  API_URL: 'http://set-in-beforeAll',
  API_KEY: 'sk_test_set_in_beforeAll',
  MERCHANT_ID: 'mch_set_in_beforeAll',
  TEST_KEY_ID: 'key_set_in_beforeAll',
  OLD_KEY_ID: 'key_set_in_beforeAll',
  // The edge: the API's host as the ApiUrl output gives it, a custom domain and its us-east-1 certificate.
  API_HOST: 'a1b2c3d4e5.execute-api.sa-east-1.amazonaws.com',
  EDGE_DOMAIN: 'api.payments.example.com',
  CERT_ARN: 'arn:aws:acm:us-east-1:111122223333:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b',
};

describe('the npm run cli lines, in the runbook order, against a stand-in for the deployed stage', () => {
  let stack: TestStack;
  let sqs: SQSClient;
  const saved = { endpoint: process.env.AWS_ENDPOINT_URL_SQS };

  beforeAll(async () => {
    stack = await startTestStack();
    // The merchant of the runbook's later steps: its first sk_test_ key (revoked in live), another one for the
    // sandbox smoke test, and a live key to rotate out.
    const m = await stack.admin.createMerchant({ name: 'Runbook Ltda' });
    const smoke = await stack.admin.createKey(m.merchant.merchant_id, 'test', ['*']);
    const old = await stack.admin.createKey(m.merchant.merchant_id, 'live', ['*']);
    Object.assign(VARS, {
      TABLE: stack.tableName,
      API_URL: stack.baseUrl,
      API_KEY: smoke.secret,
      MERCHANT_ID: m.merchant.merchant_id,
      TEST_KEY_ID: m.apiKey.key.key_id,
      OLD_KEY_ID: old.key.key_id,
    });
    // The stage's queues by their deployed names (`webhooks redrive --region --stage` finds them by name),
    // and the SQS client the CLI builds for the region pointed at the emulator, as AWS_ENDPOINT_URL_SQS does.
    const { sqs: endpoint } = engines();
    await ensureQueues(endpoint, `latam-payments-${VARS.STAGE}`);
    process.env.AWS_ENDPOINT_URL_SQS = endpoint;
    sqs = new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const dlq = await sqs.send(new GetQueueUrlCommand({ QueueName: dlqName(`latam-payments-${VARS.STAGE}`, 'webhooks') }));
    await sqs.send(
      new SendMessageCommand({ QueueUrl: dlq.QueueUrl, MessageBody: JSON.stringify({ event_id: 'evt_runbook_dead', attempt: 9 }) }),
    );
  });
  afterAll(async () => {
    if (saved.endpoint === undefined) delete process.env.AWS_ENDPOINT_URL_SQS;
    else process.env.AWS_ENDPOINT_URL_SQS = saved.endpoint;
    sqs?.destroy();
    await stack?.stop();
  });

  test('there are CLI lines to run, each one a command the CLI lists', () => {
    expect(CLI_LINES.length).toBeGreaterThanOrEqual(15);
    for (const l of CLI_LINES) {
      const [group, action] = shellWords(l.rest, VARS);
      const listed = group === 'trigger' ? Boolean(scenarioName(action)) : USAGE.includes(`\n  ${group} ${action}`);
      expect({ line: l.line, command: `${group} ${action}`, listed }).toEqual({
        line: l.line,
        command: `${group} ${action}`,
        listed: true,
      });
    }
  });

  test('each targets the deployed stage, never the local stack: --table and --region, or the public API', () => {
    for (const l of CLI_LINES) {
      const argv = shellWords(l.rest, VARS);
      const has = (flag: string) => argv.includes(flag);
      const target =
        argv[0] === 'webhooks'
          ? has('--region') && has('--stage')
          : ['listen', 'trigger', 'events'].includes(argv[0]!)
            ? has('--base-url') && has('--api-key')
            : has('--table') && has('--region');
      expect({ line: l.line, command: l.text, target }).toEqual({ line: l.line, command: l.text, target: true });
    }
  });

  test('each runs and exits 0 (JSON where it asks for --json)', async () => {
    // The emulator's queue URLs (http://sqs.us-east-1.127.0.0.1:<port>/...) are no valid URL to the SDK's SQS
    // middleware, which says so and keeps the endpoint; real queue URLs are fine. Everything else is printed.
    const warn = console.warn.bind(console);
    const spy = jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
      if (!((args[0] as { code?: string } | undefined)?.code === 'ERR_INVALID_URL')) warn(...args);
    });
    const failures: string[] = [];
    for (const l of CLI_LINES) {
      const argv = shellWords(l.rest, VARS);
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
      if (code !== 0) failures.push(`line ${l.line} (${l.text}) exited ${code}: ${err.join('\n')}`);
      else if (argv.includes('--json') && argv[0] !== 'trigger') {
        try {
          JSON.parse(out.join('\n'));
        } catch {
          failures.push(`line ${l.line} (${l.text}) printed no JSON: ${out.join('\n')}`);
        }
      }
    }
    spy.mockRestore();
    expect(failures).toEqual([]);

    // What the lines did to the stand-in stage: the test key revoked, the old key revoked, a new live key,
    // the limits back to default for createPayout and raised for listPayouts, the dead letter redriven.
    const keys = await stack.admin.listKeys(VARS.MERCHANT_ID!);
    expect(keys.find((k) => k.key_id === VARS.TEST_KEY_ID)?.status).toBe('revoked');
    expect(keys.find((k) => k.key_id === VARS.OLD_KEY_ID)?.status).toBe('revoked');
    expect(keys.filter((k) => k.mode === 'live' && k.status === 'active').length).toBeGreaterThanOrEqual(2);
    const merchant = await stack.admin.getMerchant(VARS.MERCHANT_ID!);
    expect(merchant.status).toBe('active');
    expect(merchant.rate_limits?.createPayout).toBeUndefined();
    expect(merchant.rate_limits?.listPayouts).toBe(300);
    const queue = await sqs.send(new GetQueueUrlCommand({ QueueName: queueName(`latam-payments-${VARS.STAGE}`, 'webhooks') }));
    const moved = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    expect((moved.Messages ?? []).map((m) => JSON.parse(m.Body ?? '{}'))).toContainEqual({
      event_id: 'evt_runbook_dead',
      attempt: 0,
      manual: true,
    });
  }, 120_000);
});

// ---- the cdk lines: flags the CLI accepts, a context bin/app.ts synthesizes, stacks it has ----

interface CdkOption {
  readonly names: string[];
  readonly type: string;
}

/** The options `npx cdk <command> --help` lists, with their types. */
async function cdkOptions(command: string): Promise<CdkOption[]> {
  const help = await run('npx', ['cdk', command, '--help'], {});
  if (help.code !== 0) throw new Error(`cdk ${command} --help failed: ${help.stderr}`);
  const options: CdkOption[] = [];
  for (const block of help.stdout.split(/\n(?=\s{2}-)/)) {
    const head = /^\s*((?:--?[\w-]+(?:, )?)+)/.exec(block);
    if (!head) continue;
    options.push({
      names: head[1]!.split(', ').map((s) => s.trim()),
      type: /\[(boolean|string|array|number|count)\]/.exec(block)?.[1] ?? 'boolean',
    });
  }
  return options;
}

function run(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface ParsedCdk {
  readonly command: string;
  readonly context: Record<string, string>;
  readonly positionals: string[];
  readonly flags: string[];
}

function parseCdk(words: string[], options: CdkOption[]): ParsedCdk {
  const [command, ...rest] = words;
  const context: Record<string, string> = {};
  const positionals: string[] = [];
  const flags: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (!w.startsWith('-')) {
      positionals.push(w);
      continue;
    }
    const [name, inline] = w.split(/=(.*)/s, 2) as [string, string | undefined];
    const option = options.find((o) => o.names.includes(name) || (name.startsWith('--no-') && o.names.includes(`--${name.slice(5)}`)));
    if (!option) throw new Error(`cdk ${command} has no option ${name}`);
    flags.push(option.names[0]!);
    const takesValue = option.type !== 'boolean' && option.type !== 'count' && !name.startsWith('--no-');
    const value = takesValue ? (inline ?? rest[++i]) : undefined;
    if (takesValue && value === undefined) throw new Error(`cdk ${command} ${name} needs a value`);
    if (option.names.includes('--context')) {
      const [key, v] = value!.split(/=(.*)/s, 2) as [string, string | undefined];
      if (v === undefined) throw new Error(`-c ${value}: expected KEY=VALUE`);
      context[key] = v;
    }
  }
  return { command: command!, context, positionals, flags };
}

interface Synthesized {
  readonly stacks: string[];
  /** cdk-nag errors (and any other error annotation): `cdk synth` and `cdk deploy` refuse them. */
  readonly errors: string[];
}

const cdkJson = () => JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as { app: string; context: Record<string, unknown> };
/** What `cdk` gives the app: cdk.json's context, then the line's `-c` values; bundling skipped. */
const appContext = (context: Record<string, string>) => ({ ...cdkJson().context, ...context, 'aws:cdk:bundling-stacks': [] });

function fromAssembly(dir: string): Synthesized {
  const assembly = new CloudAssembly(dir);
  return {
    stacks: assembly.stacks.map((s) => s.stackName),
    errors: assembly.stacks.flatMap((s) => s.messages.filter((m) => m.level === 'error').map((m) => `${m.id}: ${String(m.entry.data)}`)),
  };
}

/** The app bin/app.ts builds, in-process: the stage from context, buildApp, the same nag packs. */
function synthesize(context: Record<string, string>): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'runbook-cdk-'));
  try {
    const app = new App({ outdir, context: appContext(context) });
    buildApp(app, parseStage(app.node.tryGetContext('stage')));
    applyNagPacks(app, { reports: false });
    app.synth();
    return fromAssembly(outdir);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** bin/app.ts itself, run as `cdk` runs it: cdk.json's app command with the context in CDK_CONTEXT_JSON. */
async function synthesizeWithAppCommand(context: Record<string, string>): Promise<Synthesized> {
  const outdir = mkdtempSync(join(tmpdir(), 'runbook-cdk-'));
  try {
    const r = await run('sh', ['-c', cdkJson().app], { CDK_OUTDIR: outdir, CDK_CONTEXT_JSON: JSON.stringify(appContext(context)) });
    if (r.code !== 0) throw new Error(`${cdkJson().app} failed: ${r.stderr}`);
    return fromAssembly(outdir);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

const glob = (pattern: string) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);

describe('the npx cdk lines', () => {
  test('use options the CDK CLI accepts, context bin/app.ts knows, and a stage and stacks the app synthesizes', async () => {
    expect(CDK_LINES.length).toBeGreaterThanOrEqual(8);
    const commands = [...new Set(CDK_LINES.map((l) => shellWords(l.rest, VARS)[0]!))];
    const options = new Map<string, CdkOption[]>();
    for (const c of commands) options.set(c, await cdkOptions(c));
    const parsed = CDK_LINES.map((l) => ({ l, p: parseCdk(shellWords(l.rest, VARS), options.get(shellWords(l.rest, VARS)[0]!)!) }));

    const known = new Set<string>(['stage', PUBLIC_BASE_URL_CONTEXT, ...EDGE_CONTEXT_KEYS]);
    for (const { l, p } of parsed) {
      expect({ line: l.line, command: p.command }).toEqual({
        line: l.line,
        command: expect.stringMatching(/^(bootstrap|synth|deploy|diff|destroy)$/),
      });
      expect({ line: l.line, unknownContext: Object.keys(p.context).filter((k) => !known.has(k)) }).toEqual({
        line: l.line,
        unknownContext: [],
      });
      if (p.command === 'bootstrap') {
        for (const env of p.positionals) expect(env).toMatch(/^aws:\/\/\d{12}\/[a-z]{2}(-[a-z]+)+-\d$/);
      } else if (p.command === 'deploy' || p.command === 'destroy') {
        // With several stacks in the app, cdk wants --all or the stacks by name.
        expect({ line: l.line, selects: p.flags.includes('--all') || p.positionals.length > 0 }).toEqual({ line: l.line, selects: true });
      }
    }

    // One synthesis per distinct context, as cdk runs the app for each line.
    const apps = parsed.filter(({ p }) => p.command !== 'bootstrap');
    const contexts = [...new Map(apps.map(({ p }) => [JSON.stringify(p.context), p.context])).values()];
    expect(contexts.map((c) => c.stage)).toEqual(expect.arrayContaining([...STAGES]));
    const results = new Map<string, Synthesized | Error>();
    for (const c of contexts) {
      try {
        results.set(JSON.stringify(c), synthesize(c));
      } catch (e) {
        results.set(JSON.stringify(c), e as Error);
      }
    }
    for (const { l, p } of apps) {
      const r = results.get(JSON.stringify(p.context))!;
      expect({ line: l.line, error: r instanceof Error ? r.message : undefined }).toEqual({ line: l.line, error: undefined });
      if (r instanceof Error) continue;
      expect({ line: l.line, nagErrors: r.errors }).toEqual({ line: l.line, nagErrors: [] });
      const stage = p.context.stage ?? 'sandbox';
      expect(r.stacks).toEqual(expect.arrayContaining([`LatamPayments-${stage}-Stateful`, `LatamPayments-${stage}-Stateless`]));
      for (const pattern of p.positionals) {
        expect({ line: l.line, pattern, matches: r.stacks.some((s) => glob(pattern).test(s)) }).toEqual({
          line: l.line,
          pattern,
          matches: true,
        });
      }
      if (p.context.edge === 'true') expect(r.stacks).toContain(`LatamPayments-${stage}-Edge`);
    }

    // And bin/app.ts itself, as cdk runs it, with the richest context (the live edge): the same stacks, no error.
    const richest = contexts.reduce((a, b) => (Object.keys(b).length > Object.keys(a).length ? b : a));
    expect(richest).toMatchObject({ stage: 'live', edge: 'true' });
    const viaCommand = await synthesizeWithAppCommand(richest);
    expect(viaCommand).toEqual(results.get(JSON.stringify(richest)));
  }, 300_000);
});
