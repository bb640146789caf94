/**
 * The house rules of shared/ (issue 31, ARCHITECTURE.md): no import cycle anywhere in shared/ (type-only imports
 * count: a cycle of types is still two modules that cannot be read apart), and a capability folder of
 * shared/application is imported from outside only through its index.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { findCycles, importGraph, specifiersOf, type ImportGraph } from '../support/import-graph';

const ROOT = resolve(__dirname, '../..');
const SHARED = join(ROOT, 'shared');
const APPLICATION = join(SHARED, 'application');

const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

describe('the cycle detector', () => {
  it('finds no cycle in a tree', () => {
    expect(findCycles(graphOf({ 'a.ts': ['b.ts', 'c.ts'], 'b.ts': ['c.ts'], 'c.ts': [] }))).toEqual([]);
  });

  it('names a planted cycle, from its first module back to it', () => {
    const graph = graphOf({ 'a.ts': ['b.ts'], 'b.ts': ['c.ts'], 'c.ts': ['a.ts', 'd.ts'], 'd.ts': [] });
    expect(findCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });

  it('names each cycle once, and a module that imports itself', () => {
    const graph = graphOf({ 'a.ts': ['b.ts'], 'b.ts': ['a.ts'], 'x.ts': ['y.ts'], 'y.ts': ['x.ts'], 'z.ts': ['z.ts'] });
    expect(findCycles(graph)).toEqual([
      ['a.ts', 'b.ts', 'a.ts'],
      ['x.ts', 'y.ts', 'x.ts'],
      ['z.ts', 'z.ts'],
    ]);
  });

  it('reads imports, type-only imports, re-exports and side-effect imports', () => {
    const source = [
      "import { a } from './a';",
      "import type { B } from './b';",
      "export * from './c';",
      "export { type D } from './d';",
      "import './e';",
      "import fs from 'node:fs';",
    ].join('\n');
    expect(specifiersOf(source)).toEqual(['./a', './b', './c', './d', './e', 'node:fs']);
  });
});

describe('shared/', () => {
  const graph = importGraph(SHARED);

  it('is read whole (the application layer and its capability indexes included)', () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get('application/payments/index.ts')).toContain('application/payments/payments.ts');
  });

  it('has no import cycle', () => {
    const cycles = findCycles(graph).map((c) => c.join(' -> '));
    expect(cycles).toEqual([]);
  });
});

describe('shared/application capabilities', () => {
  /** Every .ts file of the repository that imports application code (tests, functions, bin, scripts, shared). */
  const importers = [...importGraph(ROOT).keys()].filter((f) => !f.startsWith('node_modules/'));

  it('are imported from outside their folder only through their index', () => {
    const deep: string[] = [];
    for (const file of importers) {
      const from = join(ROOT, file);
      for (const spec of specifiersOf(readFileSync(from, 'utf8'))) {
        if (!spec.startsWith('.')) continue;
        const target = relative(APPLICATION, resolve(dirname(from), spec));
        if (target.startsWith('..') || !target.includes('/')) continue;
        const [folder, rest] = [target.slice(0, target.indexOf('/')), target.slice(target.indexOf('/') + 1)];
        const inside = relative(join(APPLICATION, folder), from);
        if (!inside.startsWith('..')) continue; // a file of the same capability imports its neighbours directly
        if (rest !== 'index' && rest !== 'index.ts') deep.push(`${file} imports ${spec}`);
      }
    }
    expect(deep).toEqual([]);
  });
});
