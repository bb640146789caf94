/**
 * The house rules of the source tree (issues 31 and 40, ARCHITECTURE.md): no import cycle anywhere in bin/, lib/,
 * functions/, scripts/ and shared/, read as one graph so a cycle across them counts too (type-only imports
 * count: a cycle of types is still two modules that cannot be read apart), and a capability folder of
 * shared/application is imported from outside only through its index.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { findCycles, importGraph, specifiersOf, type ImportGraph } from '../support/import-graph';

const ROOT = resolve(__dirname, '../..');
const APPLICATION = join(ROOT, 'shared', 'application');
/** The source roots, read as one graph (tests, sdk/ and the dependencies are not). */
const SOURCE_ROOTS = ['bin', 'lib', 'functions', 'scripts', 'shared'] as const;

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

describe('the import graph', () => {
  it('of several folders follows imports between them, so a cycle across folders is found', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-graph-'));
    try {
      for (const folder of ['a', 'b', 'c']) mkdirSync(join(dir, folder));
      writeFileSync(join(dir, 'a/x.ts'), "import { y } from '../b/y';\nexport const x = y;\n");
      writeFileSync(join(dir, 'b/y.ts'), "import type { X } from '../a/x';\nimport { z } from '../c/z';\nexport const y = z;\n");
      writeFileSync(join(dir, 'c/z.ts'), "import { x } from '../a/x';\nexport const z = 1;\n");
      expect(findCycles(importGraph(dir, ['a', 'b']))).toEqual([['a/x.ts', 'b/y.ts', 'a/x.ts']]);
      expect(importGraph(dir, ['a', 'b']).has('c/z.ts')).toBe(false);
      expect(findCycles(importGraph(dir, ['a', 'b', 'c']))).toEqual([['a/x.ts', 'b/y.ts', 'a/x.ts']]);
      writeFileSync(join(dir, 'b/y.ts'), "import { z } from '../c/z';\nexport const y = z;\n");
      expect(findCycles(importGraph(dir, ['a', 'b', 'c']))).toEqual([['a/x.ts', 'b/y.ts', 'c/z.ts', 'a/x.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe(`${SOURCE_ROOTS.join('/, ')}/`, () => {
  const graph = importGraph(ROOT, SOURCE_ROOTS);
  const files = [...graph.keys()];

  it('are each read (shared/ whole, the application layer and its capability indexes included)', () => {
    const counts = Object.fromEntries(SOURCE_ROOTS.map((r) => [r, files.filter((f) => f.startsWith(`${r}/`)).length]));
    expect(SOURCE_ROOTS.filter((r) => !counts[r])).toEqual([]);
    expect(counts.shared).toBeGreaterThan(200);
    expect(files.every((f) => SOURCE_ROOTS.some((r) => f.startsWith(`${r}/`)))).toBe(true);
    expect(graph.get('shared/application/payments/index.ts')).toContain('shared/application/payments/payments.ts');
  });

  it('are one graph: imports from one root into another are edges of it', () => {
    expect(graph.get('bin/cli/run.ts')).toContain('shared/wiring/index.ts');
    expect(graph.get('lib/manifest.ts')).toContain('shared/manifest/routes.ts');
    const crossing = new Set(
      files.flatMap((f) =>
        (graph.get(f) ?? []).filter((to) => to.split('/')[0] !== f.split('/')[0]).map((to) => `${f.split('/')[0]} -> ${to.split('/')[0]}`),
      ),
    );
    expect([...crossing]).toEqual(
      expect.arrayContaining([
        'bin -> shared',
        'bin -> lib',
        'lib -> shared',
        'functions -> shared',
        'scripts -> shared',
        'scripts -> lib',
      ]),
    );
  });

  it('have no import cycle', () => {
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
