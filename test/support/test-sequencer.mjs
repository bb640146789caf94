/**
 * The order jest runs the test files in (plain JavaScript: jest loads a sequencer without transforming it). Jest's
 * own sequencer runs the files it has timed, longest first, which keeps every worker busy to the end; on a clean
 * clone (CI) it has timed nothing and orders by file size, so a long file of few lines (a 64-request burst, a
 * property run) can start last and run alone while the other workers idle. Here a file jest has not timed takes
 * its duration from test/support/test-durations.json (measured on the 2-core machine, refreshed with
 * `npm run test:durations`), and a file in neither is taken as short; then the longest run first. Jest's record
 * of the last run still wins where it has one, and a file that failed last time still runs first.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Sequencer from '@jest/test-sequencer';

const ROOT = join(import.meta.dirname, '..', '..');
const DURATIONS_FILE = join(import.meta.dirname, 'test-durations.json');

/** @returns {Record<string, number>} seconds per file, by path from the repository's root */
function committed() {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8'));
  } catch {
    return {};
  }
}

export default class DurationSequencer extends Sequencer {
  /** @param {import('@jest/test-result').Test[]} tests */
  sort(tests) {
    const known = committed();
    /** jest's record of the file's last run: [0 failed or 1 passed, milliseconds], if any. */
    const last = (t) => this._getCache(t)[t.path];
    /** Seconds: jest's record of the last run, else the committed measure, else 0 (short). */
    const seconds = (t) => {
      const cached = last(t)?.[1];
      if (cached) return cached / 1000;
      return known[relative(ROOT, t.path).split('\\').join('/')] ?? 0;
    };
    const failed = (t) => Number(last(t)?.[0] === 0);
    const size = (t) => t.context.hasteFS.getSize(t.path) ?? 0;
    for (const t of tests) t.duration = seconds(t) * 1000 || undefined;
    return [...tests].sort((a, b) => failed(b) - failed(a) || seconds(b) - seconds(a) || size(b) - size(a));
  }
}
