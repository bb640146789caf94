/**
 * docs/live-stage.md "Live PIX through API Pix, and the local live stage", run as written (issue 21): the fake PSP's
 * command, `npm start -- --stage live`, then the third terminal's script (register the webhook, check the
 * providers, take a payment, pay it at the PSP, read its status), each in its own shell with the doc's
 * `.local/` and ports swapped for a temporary folder and free ports. The payment must read `success`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bin/local/services';
import { codeBlocks } from '../support/markdown-commands';

jest.setTimeout(180_000);

const DOC = readFileSync('docs/live-stage.md', 'utf8');
const section = DOC.slice(DOC.indexOf('## Live PIX through API Pix'), DOC.indexOf('## The other fakes'));
const blocks = codeBlocks(section).filter((b) => b.lang === 'bash');

const procs: ChildProcess[] = [];
function run(script: string): { child: ChildProcess; output: () => string } {
  const child = spawn('sh', ['-c', script], {
    env: { ...process.env, TABLE_NAME: '', DYNAMODB_ENDPOINT: '', SQS_ENDPOINT: '', STAGE: '', POWERTOOLS_LOG_LEVEL: 'WARN' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  procs.push(child);
  return { child, output: () => out };
}

async function waitFor(p: ReturnType<typeof run>, re: RegExp, what: string, ms = 120_000) {
  const end = Date.now() + ms;
  while (!re.test(p.output())) {
    if (p.child.exitCode !== null) throw new Error(`${what} exited ${p.child.exitCode}:\n${p.output()}`);
    if (Date.now() > end) throw new Error(`${what} timed out:\n${p.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterAll(async () => {
  for (const child of procs.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null || !child.pid) continue;
    const gone = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid, 'SIGINT');
    const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 20_000);
    await gone;
    clearTimeout(timer);
  }
});

it('the docs/live-stage.md live stage works as written: a live PIX payment paid at the fake PSP reads success', async () => {
  expect(blocks).toHaveLength(3);
  const dir = mkdtempSync(join(tmpdir(), 'live-quickstart-'));
  const [api, psp] = [await freePort(), await freePort()];
  const local = (script: string) =>
    script
      .replaceAll('./.local/', `${dir}/`)
      .replaceAll('.local/', `${dir}/`)
      .replaceAll('3001', String(api))
      .replaceAll('4100', String(psp));

  const fake = run(local(blocks[0]!.code));
  await waitFor(fake, /Ctrl-C stops it\./, 'the fake PSP');
  const stack = run(local(blocks[1]!.code));
  await waitFor(stack, /ready in \d+ ms .*\(live stage\)/, 'the live stage');

  const third = run(`set -e\n${local(blocks[2]!.code)}`);
  const code = await new Promise<number | null>((r) => third.child.once('exit', (c) => r(c)));
  if (code !== 0) throw new Error(`the third terminal exited ${code}:\n${third.output()}`);
  expect(third.output()).toMatch(/Registered .* for key/);
  expect(third.output()).toMatch(/api_pix: token obtained .* over mutual TLS/);
  expect(third.output()).toMatch(/"callbackStatus": 200/);
  const status = JSON.parse(third.output().trim().split('\n').at(-1)!) as { status: string; payment_method: string };
  expect(status).toMatchObject({ status: 'success', payment_method: 'pix' });
});
