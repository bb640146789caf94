/**
 * The import graph of a source tree (every relative import, export-from and `import type`, read with the
 * TypeScript compiler's pre-processor) and its cycles: the guard test/unit/import-cycles.test.ts runs on the
 * repository's source roots (bin/, lib/, functions/, scripts/, shared/) as one graph.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Module -> the modules it imports (paths relative to the root, with their extension). */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** Folders never read: dependencies and build output. */
const SKIPPED = new Set(['node_modules', '.git', 'cdk.out', '.local', '.bench', 'coverage', 'dist']);

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names (`./x`, `./x.ts`, `./x/index.ts`), or null when it is not one of ours. */
function resolveSpecifier(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** The relative specifiers a source text imports or re-exports (type-only ones included). */
export function specifiersOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

/**
 * The graph of every .ts file under `root`, or, given `folders` (relative to `root`), under those folders only:
 * one graph whose edges cross between them (bin -> shared, lib -> functions), so a cycle spanning folders is one
 * of its cycles. Edges go only to files read; paths are relative to `root`.
 */
export function importGraph(root: string, folders?: readonly string[]): ImportGraph {
  const graph = new Map<string, string[]>();
  const absRoot = resolve(root);
  const files = folders ? folders.flatMap((f) => tsFiles(join(absRoot, f))) : tsFiles(absRoot);
  const read = new Set(files);
  for (const file of files) {
    const edges = specifiersOf(readFileSync(file, 'utf8'))
      .map((spec) => resolveSpecifier(file, spec))
      .filter((to): to is string => to !== null && read.has(to))
      .map((to) => relative(absRoot, to));
    graph.set(relative(absRoot, file), [...new Set(edges)]);
  }
  return graph;
}

/**
 * The cycles of a graph, one per strongly connected component of more than one module (or a module that
 * imports itself), each given as a path that returns to its start: a -> b -> a.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const strongConnect = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) strongConnect(v);
  return components.map((c) => cyclePath(graph, new Set(c)));
}

/** One concrete cycle inside a strongly connected component: a shortest path from its first module back to it. */
function cyclePath(graph: ImportGraph, members: ReadonlySet<string>): string[] {
  const start = [...members].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
