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
import { createServer } from 'node:http';
import { startFakePsp, type FakePsp } from '../support/fake-psp';
import { startFakeEfi, type FakeEfi } from '../support/fake-efi';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetQueueUrlCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { runCli, USAGE } from '../../bin/cli/run';
import { scenarioName } from '../../bin/cli/trigger';
import { DEFAULT_RATE_LIMIT_PER_IP, RATE_WINDOW_SECONDS } from '../../lib/edge-protection';
import { EDGE_CONTEXT_KEYS } from '../../lib/edge-stack';
import { PUBLIC_BASE_URL_CONTEXT } from '../../lib/app';
import { STAGES, stageConfig } from '../../lib/stage-config';
import { ensureQueues } from '../../bin/local/services';
import { MAX_BODY_BYTES } from '../../shared/http/middleware/validation';
import { dlqName, queueName } from '../../shared/manifest/queues';
import { ROUTES } from '../../shared/manifest/routes';
import type { RouteDefinition } from '../../shared/manifest/route-types';
import { cdkOptions, parseCdk, synthesize, synthesizeWithAppCommand, type CdkOption, type Synthesized } from '../support/cdk-cli';
import { engines } from '../support/engines';
import { codeBlocks, shellWords } from '../support/markdown-commands';
import { startTestStack, type TestStack } from '../support/test-stack';

const ROOT = join(__dirname, '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');

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
      'providers check',
      'providers api-pix',
      'providers efi',
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
  let psp: FakePsp;
  let efi: FakeEfi;
  let secrets: { url: string; close(): Promise<void> };
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
    // The stage's providers secret holds an API Pix block pointing at the fake PSP; Secrets Manager is a stand-in
    // answering GetSecretValue for that name (the SDK reaches it through AWS_ENDPOINT_URL_SECRETS_MANAGER).
    psp = await startFakePsp();
    // And an Efí block (PIX payouts) pointing at the fake Efí, whose key has an old webhook until the runbook's line.
    efi = await startFakeEfi();
    efi.setWebhookUrl('https://old.example.com/providers/efi/old-token');
    secrets = await startSecretsStandIn(
      `latam-payments/${VARS.STAGE}/providers`,
      JSON.stringify({ api_pix: psp.apiPixConfig('r'.repeat(40)), efi: efi.efiConfig('e'.repeat(40)) }),
    );
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = secrets.url;
  });
  afterAll(async () => {
    if (saved.endpoint === undefined) delete process.env.AWS_ENDPOINT_URL_SQS;
    else process.env.AWS_ENDPOINT_URL_SQS = saved.endpoint;
    sqs?.destroy();
    delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
    await secrets?.close();
    await psp?.close();
    await efi?.close();
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
          : argv[0] === 'providers'
            ? has('--secret-name') && has('--region')
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
    // The PSP has the stage's callback URL, and every request it got matched the API Pix schemas.
    expect(psp.webhookUrl()).toBe(`${VARS.API_URL}/providers/api-pix/${'r'.repeat(40)}`);
    expect(psp.violations).toEqual([]);
    expect(efi.webhookUrl()).toBe(`${VARS.API_URL}/providers/efi/${'e'.repeat(40)}`);
    expect(efi.violations).toEqual([]);
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

/** Secrets Manager's GetSecretValue (JSON 1.1 protocol) for one secret name, on loopback. */
async function startSecretsStandIn(name: string, value: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { SecretId?: string };
      const ok = req.headers['x-amz-target'] === 'secretsmanager.GetSecretValue' && body.SecretId === name;
      res.writeHead(ok ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(
        JSON.stringify(
          ok
            ? {
                ARN: `arn:aws:secretsmanager:us-east-1:111122223333:secret:${name}-AbCdEf`,
                Name: name,
                SecretString: value,
                VersionId: 'v1',
              }
            : { __type: 'ResourceNotFoundException', message: 'Secrets Manager cannot find the specified secret.' },
        ),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  return {
    url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
