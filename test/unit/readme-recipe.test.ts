/** The webhook verification recipe in docs/webhooks.md is exactly the code the tests run against real deliveries. */
import { readFileSync } from 'node:fs';

const BEGIN = '// --- verify-webhook: begin ---\n';
const END = '// --- verify-webhook: end ---';

it('docs/webhooks.md shows test/support/merchant-verify.ts verbatim', () => {
  const source = readFileSync('test/support/merchant-verify.ts', 'utf8');
  const block = source.slice(source.indexOf(BEGIN) + BEGIN.length, source.indexOf(END));
  expect(block.length).toBeGreaterThan(500);
  expect(readFileSync('docs/webhooks.md', 'utf8')).toContain(`\`\`\`ts\n${block}\`\`\``);
});
