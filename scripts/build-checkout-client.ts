/** npm run build:checkout: writes the hosted checkout page bundle (see checkout-bundle.ts). */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { bundleCheckoutClient, OUTPUT } from './checkout-bundle';

const next = bundleCheckoutClient();
const current = existsSync(OUTPUT) ? readFileSync(OUTPUT, 'utf8') : '';
if (next !== current) writeFileSync(OUTPUT, next);
console.log(`${next === current ? 'unchanged' : 'wrote'} ${OUTPUT} (${Buffer.byteLength(next)} bytes)`);
