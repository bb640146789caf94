/**
 * The functions' schemas run on zod/mini (shared/domain/zod.ts), which has no locale of its own: the English
 * messages classic zod uses by default are set there. Under jest every module runs, but in a bundle
 * (package.json "sideEffects": false) esbuild drops a module whose own exports go unused, and the messages
 * with it ("Invalid input" for everything). So this bundles the validation middleware exactly as a function
 * is bundled and reads its 400 details in a process without classic zod.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { esbuildOptions } from '../../lib/bundling';

const ROOT = resolve(__dirname, '../..');

const ENTRY = `
import { validation } from './shared/http/middleware/validation';
import { createSessionBody } from './shared/domain/payments/payment.schemas';
import { listPayoutsQuery } from './shared/domain/payouts/payout.schemas';
const details = (schemas, event) => {
  try {
    validation(schemas).before({ event, context: { route: { bodyFormat: 'json' } } });
    return null;
  } catch (e) {
    return e.details;
  }
};
const body = { amount: 'ten', currency: 'XXX', country: 'BRA', success_url: 'ftp://shop.example.com', description: 7 };
process.stdout.write(JSON.stringify({
  body: details({ body: createSessionBody }, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  query: details({ query: listPayoutsQuery }, { headers: {}, queryStringParameters: { limit: '500', offset: 'x' } }),
}));
`;

function bundle() {
  const out = buildSync({
    ...esbuildOptions(),
    stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: 'zod-runtime-entry.ts', loader: 'ts' },
    write: false,
    outdir: 'out',
    metafile: true,
  });
  return { code: out.outputFiles[0]!.text, inputs: Object.keys(out.metafile.inputs) };
}

describe('zod in a function bundle', () => {
  const { code, inputs } = bundle();

  it('carries zod/mini and not classic zod', () => {
    expect(inputs.some((i) => i.includes('node_modules/zod/v4/mini/'))).toBe(true);
    expect(inputs.filter((i) => i.includes('node_modules/zod/v4/classic/'))).toEqual([]);
  });

  it('answers with the English messages classic zod gives', () => {
    const run = spawnSync(process.execPath, ['--input-type=module'], { input: code, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      body: [
        { field: 'amount', message: 'Invalid input: expected number, received string' },
        { field: 'currency', message: 'Invalid option: expected one of "BRL"|"PEN"|"COP"|"CLP"|"MXN"|"USD"|"ARS"' },
        { field: 'success_url', message: 'must be an http(s) URL' },
        { field: 'cancel_url', message: 'Invalid input: expected string, received undefined' },
        { field: 'description', message: 'Invalid input: expected string, received number' },
      ],
      query: [
        { field: 'limit', message: 'Too big: expected number to be <=100' },
        { field: 'offset', message: 'Invalid input: expected number, received NaN' },
      ],
    });
  });
});
