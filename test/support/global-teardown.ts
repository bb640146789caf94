import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentedPairs } from './contract';

/** Prints how many documented (route, status) pairs and webhook types the run's answers covered. */
function reportContractCoverage() {
  const file = process.env.CONTRACT_COVERAGE_FILE;
  if (!file) return;
  const seen = new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean));
  if (seen.size === 0) return; // a partial run (unit tests only)
  const documented = documentedPairs();
  const missing = documented.filter((p) => !seen.has(p));
  const lines = [
    `Contract coverage: ${documented.length - missing.length} of ${documented.length} documented (route, status) pairs and webhook types`,
    `Not exercised: ${missing.join(', ') || 'none'}`,
  ];
  writeFileSync(join(__dirname, '..', '..', '.contract-coverage.txt'), `${lines.join('\n')}\n`);
  console.log(`\n${lines.join('\n')}`);
}

export default async function globalTeardown() {
  reportContractCoverage();
  await Promise.all((globalThis.__ENGINES__ ?? []).map((e) => e.stop()));
  const runTmp = process.env.TEST_RUN_TMPDIR;
  if (runTmp) rmSync(runTmp, { recursive: true, force: true });
}
