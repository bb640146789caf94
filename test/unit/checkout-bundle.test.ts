/** The hosted page script inlined by the page handler is the bundle of client/ as it is now. */
import { readFileSync } from 'node:fs';
import { bundleCheckoutClient, OUTPUT } from '../../scripts/checkout-bundle';

it('client-bundle.generated.ts is up to date (run `npm run build:checkout` after editing client/)', () => {
  expect(readFileSync(OUTPUT, 'utf8') === bundleCheckoutClient()).toBe(true);
});

it('the bundle stays small: the page script under 30 KB', () => {
  expect(Buffer.byteLength(readFileSync(OUTPUT, 'utf8'))).toBeLessThan(30 * 1024);
});
