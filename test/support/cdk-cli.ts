/**
 * The CDK CLI as the runbook test checks it: the options `npx cdk <command> --help` lists, one `npx cdk`
 * line parsed against them, and the app synthesized for a line's context the two ways `cdk` would build it
 * (in-process as bin/app.ts does, and through cdk.json's app command), with the cdk-nag packs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { buildApp } from '../../lib/app';
import { applyNagPacks } from '../../lib/nag';
import { parseStage } from '../../lib/stage-config';

const ROOT = join(__dirname, '..', '..');

export interface CdkOption {
  readonly names: string[];
  readonly type: string;
}

/** The options `npx cdk <command> --help` lists, with their types. */
export async function cdkOptions(command: string): Promise<CdkOption[]> {
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

export interface ParsedCdk {
  readonly command: string;
  readonly context: Record<string, string>;
  readonly positionals: string[];
  readonly flags: string[];
}

export function parseCdk(words: string[], options: CdkOption[]): ParsedCdk {
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

export interface Synthesized {
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
export function synthesize(context: Record<string, string>): Synthesized {
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
export async function synthesizeWithAppCommand(context: Record<string, string>): Promise<Synthesized> {
  const outdir = mkdtempSync(join(tmpdir(), 'runbook-cdk-'));
  try {
    const r = await run('sh', ['-c', cdkJson().app], { CDK_OUTDIR: outdir, CDK_CONTEXT_JSON: JSON.stringify(appContext(context)) });
    if (r.code !== 0) throw new Error(`${cdkJson().app} failed: ${r.stderr}`);
    return fromAssembly(outdir);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
