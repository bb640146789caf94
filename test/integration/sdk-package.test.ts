/**
 * The SDK as a merchant installs it: `npm pack` in sdk/ (which builds dist/ with tsc), the tarball
 * extracted into an empty project's node_modules (what `npm install <tarball>` does, offline), an example
 * type-checked under --strict with the repository's TypeScript, and the package imported by Node as ESM.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

jest.setTimeout(180_000);

const root = resolve(__dirname, '..', '..');
const tsc = join(root, 'node_modules/typescript/bin/tsc');
let app: string;
let packed: { filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> };

const EXAMPLE = `import {
  LatamPayments,
  NotFoundError,
  ValidationError,
  webhooks,
  type BalanceTransaction,
  type Payout,
  type WebhookEvent,
} from '@latam-payments/node';

const client = new LatamPayments({ apiKey: 'sk_test_example', baseUrl: 'http://127.0.0.1:3000', timeout: 5000 });
export async function main(signal: AbortSignal): Promise<number> {
  const session = await client.checkout.sessions.create(
    { amount: 100.5, currency: 'BRL', country: 'BRA', success_url: 'https://s/ok', cancel_url: 'https://s/no' },
    { idempotencyKey: 'order-1', signal },
  );
  const url: string = session.checkout_url;
  const payout: Payout = await client.payouts.retrieve('po_1');
  let total = payout.amount + url.length;
  for await (const tx of client.balance.transactions.list({ currency: 'BRL' })) {
    const t: BalanceTransaction = tx;
    total += t.amount;
  }
  try {
    await client.refunds.retrieve('re_1');
  } catch (e) {
    if (e instanceof ValidationError) total += e.details.length;
    if (e instanceof NotFoundError) console.log(e.requestId, e.status, e.code);
  }
  return total;
}
export function onWebhook(raw: Buffer, headers: Record<string, string>, secret: string): string {
  const event: WebhookEvent = webhooks.verify(raw, headers, secret);
  switch (event.event) {
    case 'payout.completed':
      return event.payout_id;
    case 'payment.success':
      return event.payment_id;
    default:
      return event.event_id;
  }
}
`;

function typecheck(source: string): { status: number | null; output: string } {
  writeFileSync(join(app, 'example.ts'), source);
  const r = spawnSync(
    process.execPath,
    // A Node project's settings: Node's types, no DOM library.
    [tsc, '--strict', '--noEmit', '--module', 'nodenext', '--target', 'es2022', '--lib', 'es2023', '--types', 'node', 'example.ts'],
    { cwd: app, encoding: 'utf8' },
  );
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), 'sdk-app-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', app], { cwd: join(root, 'sdk'), encoding: 'utf8' });
  packed = JSON.parse(out.slice(out.indexOf('[')))[0];
  const tarball = join(app, packed.filename);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'merchant-app',
      private: true,
      type: 'module',
      dependencies: { '@latam-payments/node': `file:./${packed.filename}` },
    }),
  );
  const target = join(app, 'node_modules/@latam-payments/node');
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  mkdirSync(join(app, 'node_modules/@types'), { recursive: true });
  symlinkSync(join(root, 'node_modules/@types/node'), join(app, 'node_modules/@types/node'));
});
afterAll(() => rmSync(app, { recursive: true, force: true }));

it('the tarball holds the built library and its README, nothing else, and no runtime dependencies', () => {
  const paths = packed.files.map((f) => f.path).sort();
  expect(paths).toContain('dist/index.js');
  expect(paths).toContain('dist/index.d.ts');
  expect(paths).toContain('dist/openapi.generated.d.ts');
  expect(paths.filter((p) => !/^dist\/[a-z.-]+\.(js|d\.ts)$/.test(p))).toEqual(['README.md', 'package.json']);
  const manifest = JSON.parse(readFileSync(join(app, 'node_modules/@latam-payments/node/package.json'), 'utf8'));
  expect(manifest).toMatchObject({ name: '@latam-payments/node', type: 'module' });
  expect(manifest.dependencies).toBeUndefined();
  expect(packed.size).toBeLessThan(100_000);
});

it('an example type-checks under --strict in an empty project; a misuse does not', () => {
  const ok = typecheck(EXAMPLE);
  expect(ok.output).toBe('');
  expect(ok.status).toBe(0);
  const wrong = typecheck(`${EXAMPLE}\nclient.balance.transactions.list({ currency: 'EUR' });\nclient.payouts.create({ amount: 1 });\n`);
  expect(wrong.status).not.toBe(0);
  expect(wrong.output).toMatch(/example\.ts\(\d+,\d+\): error TS2322: Type '"EUR"'/);
  expect(wrong.output).toMatch(/example\.ts\(\d+,\d+\): error TS2345/);
});

it('Node imports it as ESM: a client with its mode, and a signed webhook verified', () => {
  const script = `
    import { LatamPayments, webhooks, SignatureVerificationError } from '@latam-payments/node';
    const client = new LatamPayments({ apiKey: 'sk_live_abc', baseUrl: 'https://api.example.com' });
    const secret = 'whsec_' + Buffer.from('0123456789abcdef0123456789abcdef').toString('base64');
    const body = JSON.stringify({ event: 'payment.success', event_id: 'evt_1', payment_id: 'pi_1' });
    const headers = webhooks.generateTestHeaders(body, secret);
    const event = client.webhooks.verify(body, headers, secret);
    let refused = false;
    try { webhooks.verify(body + ' ', headers, secret); } catch (e) { refused = e instanceof SignatureVerificationError; }
    console.log(JSON.stringify({ mode: client.mode, payment: event.payment_id, refused }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual({ mode: 'live', payment: 'pi_1', refused: true });
});
