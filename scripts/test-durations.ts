/**
 * Refreshes test/support/test-durations.json (the order test/support/test-sequencer.mjs gives files jest has not
 * timed, as on a clean clone) from a jest JSON report of a whole run on the 2-core machine:
 *   npx jest --json --outputFile=.jest-report.json && npm run test:durations -- .jest-report.json
 * Files under 3 s are left out (they run last, by size, where their order hardly matters).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const DURATIONS_FILE = join(import.meta.dirname, '..', 'test', 'support', 'test-durations.json');

interface Report {
  testResults: { name: string; startTime: number; endTime: number }[];
}

const file = process.argv[2];
if (!file) {
  console.error('usage: npm run test:durations -- <jest --json report>');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
const durations = Object.fromEntries(
  report.testResults
    .map((r) => [relative(process.cwd(), r.name).split('\\').join('/'), Math.round((r.endTime - r.startTime) / 100) / 10] as const)
    .filter(([, s]) => s >= 3)
    .sort(([, a], [, b]) => b - a),
);
writeFileSync(DURATIONS_FILE, `${JSON.stringify(durations, null, 2)}\n`);
console.log(`${Object.keys(durations).length} files of ${report.testResults.length} written to ${relative(process.cwd(), DURATIONS_FILE)}`);
