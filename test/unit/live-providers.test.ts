/**
 * Issue 31: a function loads a provider's connector only where the providers document configures it. The live
 * providers build exactly the configured ones and rebuild (closing the old clients) on a rotation; and a bundle
 * built the way `cdk deploy` builds it carries no connector at its import, only as chunks it loads on demand.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { functionBuildOptions, functionEntries } from '../../lib/bundling';
import { MANIFEST } from '../../lib/manifest';
import { liveProviders } from '../../shared/adapters/providers/live-providers';
import { makeCertificatesSync } from '../support/fake-psp/certificates';

const TOKEN = 'w'.repeat(40);
const dir = mkdtempSync(join(tmpdir(), 'live-providers-'));
const file = join(dir, 'providers.json');
const { client } = makeCertificatesSync();

const adyen = { base_url: 'https://adyen.example.com', api_key: 'key', merchant_account: 'Shop', hmac_key_hex: 'ab'.repeat(32) };
const stp = {
  base_url: 'https://stp.example.com',
  empresa: 'SHOP',
  cuenta_ordenante: '646180110400000007',
  private_key_pem: client.keyPem,
  webhook_token: TOKEN,
};
const apiPix = {
  base_url: 'https://pix.example.com',
  token_url: 'https://pix.example.com/oauth/token',
  client_id: 'id',
  client_secret: 'secret',
  certificate_pem: client.certPem,
  private_key_pem: client.keyPem,
  pix_key: 'pix@shop.example.com',
  webhook_token: TOKEN,
};

beforeAll(() => {
  process.env.PROVIDERS_FILE = file;
});
afterAll(() => {
  delete process.env.PROVIDERS_FILE;
  rmSync(dir, { recursive: true, force: true });
});

describe('liveProviders', () => {
  it('builds only the configured providers, once per document; a rotation rebuilds and closes the old clients', async () => {
    writeFileSync(file, JSON.stringify({ adyen }));
    const first = await liveProviders();
    expect(first.apiPix).toBeNull();
    expect(first.stp).toBeNull();
    expect(Object.keys(first.connectors ?? {}).sort()).toEqual(['cardDisputes', 'cardRails', 'heldVoucher', 'route', 'storedCards']);
    expect(await liveProviders()).toBe(first);

    const close = jest.spyOn(first.adyen!.client, 'close');
    writeFileSync(file, JSON.stringify({ adyen, stp, api_pix: apiPix }));
    const second = await liveProviders();
    expect(second).not.toBe(first);
    expect(Object.keys(second.connectors ?? {}).sort()).toEqual(
      [
        'cardDisputes',
        'cardRails',
        'heldVoucher',
        'pixRails',
        'route',
        'speiDeposits',
        'speiPayoutCallbacks',
        'speiPayouts',
        'storedCards',
      ].sort(),
    );
    await new Promise((r) => setImmediate(r));
    expect(close).toHaveBeenCalledTimes(1);
    second.apiPix?.client.close();
    second.stp?.client.close();
    second.adyen?.client.close();
  });

  it('none configured: no connectors', async () => {
    writeFileSync(file, '{}');
    expect((await liveProviders()).connectors).toBeNull();
  });
});

describe('a bundle as cdk deploy builds it', () => {
  // The connector modules (what builds a provider's clients and parses its answers). A provider's callback route
  // also imports that provider's client module for its name constant (API_PIX, STP, ADYEN): the client is then
  // at import in that one route, which calls it anyway.
  const CONNECTORS = [
    'api-pix/api-pix.connector.ts',
    'stp/stp.connector.ts',
    'adyen/adyen.connector.ts',
    'dlocal/dlocal.connector.ts',
    'binance-pay/binance-pay.connector.ts',
    '@adyen/api-library',
  ];

  it.each([
    'createDirectPayment',
    'apiPixCallback',
    'adyenNotifications',
    'stpAbonoCallback',
    'dlocalNotifications',
    'binancePayNotifications',
  ])(
    '%s carries no connector at its import, each in a chunk it loads on demand',
    async (id) => {
      const entry = functionEntries(MANIFEST).find((e) => e.id === id)!;
      const outdir = join(dir, id);
      const { metafile } = await esbuild.build({ ...functionBuildOptions(entry.handlerFile, outdir), write: false, metafile: true });
      const outputs = metafile.outputs;
      const loaded = new Set<string>();
      const visit = (f: string) => {
        if (loaded.has(f)) return;
        loaded.add(f);
        for (const i of outputs[f]!.imports) if (!i.external && i.kind === 'import-statement') visit(i.path);
      };
      // The handler's own output (each lazily loaded connector chunk is an entry point of esbuild's too).
      visit(Object.keys(outputs).find((f) => outputs[f]!.entryPoint === entry.handlerFile)!);
      const inputsOf = (files: Iterable<string>) => [...files].flatMap((f) => Object.keys(outputs[f]!.inputs));
      const atImport = inputsOf(loaded);
      const lazy = inputsOf(Object.keys(outputs).filter((f) => f.endsWith('.mjs') && !loaded.has(f)));
      for (const c of CONNECTORS) {
        expect(atImport.filter((i) => i.includes(c))).toEqual([]);
        expect(lazy.some((i) => i.includes(c))).toBe(true);
      }
    },
    60_000,
  );
});
