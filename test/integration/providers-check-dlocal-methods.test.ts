/**
 * `providers check` compares every dLocal payment_method_id we would send (LIVE_METHODS, the served wallets) with
 * the account's own method list (dLocal's GET /payments-methods?country=): an id the account does not list fails
 * the check, naming the method code, so an operator learns it before a shopper's payment fails.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { providersCheck } from '../../bin/cli/providers';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';

let fake: FakeDlocal;
const dir = mkdtempSync(join(tmpdir(), 'providers-check-'));

beforeAll(async () => {
  fake = await startFakeDlocal();
});
afterAll(async () => {
  await fake?.close();
});

async function check(cfg: Record<string, unknown>) {
  const file = join(dir, `${Math.random()}.json`);
  writeFileSync(file, JSON.stringify({ dlocal: cfg }));
  const out: string[] = [];
  const code = await providersCheck({ providers: file }, { out: (l) => out.push(l), err: (l) => out.push(l) });
  return { code, out: out.join('\n') };
}

describe('providers check: dLocal method ids against the account', () => {
  it('passes when the account lists every id, and says which per country', async () => {
    const r = await check(fake.dlocalConfig());
    expect(r.code).toBe(0);
    expect(r.out).toContain('dlocal: BRA methods listed by the account: svc-mt-7 OF, svc-mt-9 MP, svc-mt-9 PP, svc-mt-9 NU');
    expect(r.out).toContain('dlocal: COL methods listed by the account: svc-mt-14 PC, svc-mt-15 QP, svc-mt-16 EY, svc-mt-17 BQ');
    const asked = fake.requests.filter((q) => q.path.startsWith('/payments-methods')).map((q) => q.path);
    expect(asked.sort()).toEqual(['AR', 'BR', 'CL', 'CO', 'PE'].map((c) => `/payments-methods?country=${c}`));
    expect(asked).toContain('/payments-methods?country=BR');
    expect(fake.violations).toEqual([]);
  });

  it('fails, naming the code and what the account lists, when an id we would send is not the account’s', async () => {
    fake.withholdMethod('BR:PP');
    const r = await check(fake.dlocalConfig());
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/dlocal: FAILED: BRA: the account lists no PP REDIRECT for svc-mt-9; its methods: OF \(Method OF\), MP/);
    // A wallet the account is configured not to serve is not checked.
    const without = await check(fake.dlocalConfig({ wallets: ['mercado_pago', 'nupay'] }));
    expect(without.code).toBe(0);
    expect(fake.violations).toEqual([]);
  });
});
