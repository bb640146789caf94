/**
 * `npm run bench:bundles`: every function bundled exactly as `cdk deploy` bundles it
 * (lib/bundling.ts), its minified size and what each dependency contributes
 * (esbuild's metafile), then its cold import in fresh `node` processes side by side
 * with a bare import of the AWS SDK clients the same bundle imports (the SDK is the
 * Lambda runtime's, so it is outside the bundle and the baseline), and the
 * process's memory right after the import (what init leaves resident).
 *
 * Bundles are split (lib/bundling.ts): "bundle KB" is what the function's import loads (index.mjs and the
 * chunks it imports statically); "lazy KB" the chunks it loads only on first use (each live provider's
 * connector, the providers document's schemas, the QR encoder), and "lazy ms" the time to import all of
 * them after the bundle, in the same fresh process: the first live call with every provider configured.
 *
 * BENCH_COLD_RUNS (default 10) fresh processes per bundle and per baseline, alternated.
 * BENCH_ONLY=id1,id2 limits the functions. Bundles are written under .bench/bundles/.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { DEFAULT_MEMORY_MB, functionBuildOptions, functionEntries, type FunctionEntry } from '../../lib/bundling';
import { MANIFEST } from '../../lib/manifest';
import { printReport, runBench } from './support';

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 10);
const ONLY = process.env.BENCH_ONLY?.split(',');
const OUT = resolve('.bench', 'bundles');
const BUILTINS = new Set(builtinModules);

interface Built {
  readonly entry: FunctionEntry;
  readonly file: string;
  /** What the import loads: index.mjs and the chunks it imports statically (transitively). */
  readonly bytes: number;
  readonly mapBytes: number;
  /** The chunks loaded only through `await import()`, and their bytes. */
  readonly lazyFiles: string[];
  readonly lazyBytes: number;
  /** Bytes loaded at import by package (node_modules/<pkg>) or by our top-level folder (shared/domain, functions). */
  readonly parts: Map<string, number>;
  /** Packages the bundle imports at run time (the SDK): the baseline imports the same ones. */
  readonly externals: string[];
}

const partOf = (input: string) => {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  return pkg ? pkg[1]! : input.split('/').slice(0, 2).join('/');
};

async function build(entry: FunctionEntry): Promise<Built> {
  const outdir = join(OUT, entry.id);
  rmSync(outdir, { recursive: true, force: true });
  const result = await esbuild.build({ ...functionBuildOptions(entry.handlerFile, outdir), metafile: true });
  const outputs = result.metafile.outputs;
  const index = Object.keys(outputs).find((f) => outputs[f]!.entryPoint)!;
  // The import loads index.mjs and, transitively, every chunk it imports statically.
  const loaded = new Set<string>();
  const visit = (f: string) => {
    if (loaded.has(f)) return;
    loaded.add(f);
    for (const i of outputs[f]!.imports) if (!i.external && i.kind === 'import-statement') visit(i.path);
  };
  visit(index);
  // Lazily loaded: the chunks a dynamic import of the loaded code reaches, with what they import in turn (esbuild
  // also writes the chunk of an `import()` that tree shaking removed: no output imports it, nothing loads it).
  const reached = new Set(loaded);
  const lazyFiles: string[] = [];
  const reach = (f: string) => {
    if (reached.has(f)) return;
    reached.add(f);
    lazyFiles.push(f);
    for (const i of outputs[f]!.imports) if (!i.external) reach(i.path);
  };
  for (const f of loaded) for (const i of outputs[f]!.imports) if (!i.external && i.kind === 'dynamic-import') reach(i.path);
  const parts = new Map<string, number>();
  const externals = new Set<string>();
  for (const f of loaded) {
    for (const [input, { bytesInOutput }] of Object.entries(outputs[f]!.inputs)) {
      parts.set(partOf(input), (parts.get(partOf(input)) ?? 0) + bytesInOutput);
    }
    for (const i of outputs[f]!.imports) if (i.external && !i.path.startsWith('node:') && !BUILTINS.has(i.path)) externals.add(i.path);
  }
  const sum = (files: Iterable<string>) => [...files].reduce((n, f) => n + (outputs[f]?.bytes ?? 0), 0);
  return {
    entry,
    file: resolve(index),
    bytes: sum(loaded),
    mapBytes: sum([...loaded].map((f) => `${f}.map`)),
    lazyFiles: lazyFiles.map((f) => resolve(f)),
    lazyBytes: sum(lazyFiles),
    parts,
    externals: [...externals],
  };
}

/** The environment a deployed function starts with (lib/service-function.ts), minus the stage's real names. */
const FUNCTION_ENV = {
  STAGE: 'sandbox',
  TABLE_NAME: 'bench-table',
  ALLOWED_KEY_MODES: 'test',
  POWERTOOLS_SERVICE_NAME: 'latam-payments',
  POWERTOOLS_METRICS_NAMESPACE: 'LatamPayments',
  POWERTOOLS_LOG_LEVEL: 'INFO',
  AWS_REGION: 'us-east-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  PUBLIC_BASE_URL: 'https://api.example.com',
  QUEUE_URL_WEBHOOKS: 'https://sqs.us-east-1.amazonaws.com/000000000000/webhooks',
  QUEUE_URL_WEBHOOKS_DLQ: 'https://sqs.us-east-1.amazonaws.com/000000000000/webhooks-dlq',
  QUEUE_URL_PAYOUTS: 'https://sqs.us-east-1.amazonaws.com/000000000000/payouts',
};

/** Imports the modules in a fresh process and reports the import's wall time and the memory it leaves. */
const PROBE = `
const t = performance.now();
for (const m of JSON.parse(process.env.BENCH_IMPORTS)) await import(m);
const ms = performance.now() - t;
const { rss, heapUsed } = process.memoryUsage();
const l = performance.now();
for (const m of JSON.parse(process.env.BENCH_LAZY)) await import(m);
const lazyMs = performance.now() - l;
process.stdout.write(JSON.stringify({ ms, rss, heapUsed, lazyMs }));
`;

interface Sample {
  readonly ms: number;
  readonly rss: number;
  readonly heapUsed: number;
  /** The lazy chunks' import after the bundle's (0 when none was asked). */
  readonly lazyMs: number;
}

function coldImport(modules: readonly string[], nodeOptions?: string, lazy: readonly string[] = []): Sample {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE], {
    env: {
      ...process.env,
      ...FUNCTION_ENV,
      BENCH_IMPORTS: JSON.stringify(modules),
      BENCH_LAZY: JSON.stringify(lazy),
      NODE_OPTIONS: nodeOptions ?? '',
    },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`import of ${modules.join(', ')} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Sample;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const kb = (b: number) => (b / 1024).toFixed(1);
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);

/** Median bundle and bare-SDK import of one function, alternating the two so both see the same machine. */
function measureCold(b: Built, nodeOptions?: string) {
  const bundle: Sample[] = [];
  const bare: Sample[] = [];
  const sdk = b.externals.map((m) => import.meta.resolve(m));
  for (let i = 0; i < RUNS; i++) {
    bare.push(coldImport(sdk));
    bundle.push(
      coldImport(
        [pathToFileURL(b.file).href],
        nodeOptions,
        b.lazyFiles.map((f) => pathToFileURL(f).href),
      ),
    );
  }
  return {
    bundleMs: median(bundle.map((s) => s.ms)),
    bareMs: median(bare.map((s) => s.ms)),
    /** Median of the paired differences (each bundle run minus the bare run just before it): steadier than a difference of medians. */
    deltaMs: median(bundle.map((s, i) => s.ms - bare[i]!.ms)),
    rss: median(bundle.map((s) => s.rss)),
    heap: median(bundle.map((s) => s.heapUsed)),
    bareRss: median(bare.map((s) => s.rss)),
    lazyMs: median(bundle.map((s) => s.lazyMs)),
  };
}

async function main() {
  const entries = functionEntries(MANIFEST).filter((e) => !ONLY || ONLY.includes(e.id));
  const built: Built[] = [];
  for (const e of entries) built.push(await build(e));

  const rows: string[] = [];
  for (const b of built) {
    const c = measureCold(b);
    const top = [...b.parts.entries()]
      .sort((x, y) => y[1] - x[1])
      .slice(0, 4)
      .map(([p, n]) => `${p} ${kb(n)}`)
      .concat((b.entry.assets ?? []).map((a) => `beside it: ${a} ${kb(statSync(a).size)}`))
      .join(', ');
    rows.push(
      `| ${b.entry.id} | ${kb(b.bytes)} | ${kb(b.lazyBytes)} | ${kb(b.bytes + b.lazyBytes)} | ${kb(b.mapBytes)} | ` +
        `${c.bundleMs.toFixed(1)} | ${c.bareMs.toFixed(1)} | ${c.deltaMs.toFixed(1)} | ${c.lazyMs.toFixed(1)} | ` +
        `${mb(c.rss)} | ${mb(c.heap)} | ${b.entry.memoryMb ?? DEFAULT_MEMORY_MB} | ${top} |`,
    );
    process.stderr.write('.');
  }
  process.stderr.write('\n');
  printReport(
    `Bundles and cold import (median of ${RUNS} fresh processes each, bundle and bare SDK alternated), ` +
      `Node ${process.version}, ${new Date().toISOString()}`,
    '| function | bundle KB (at import) | lazy KB | all KB | map KB | import ms | bare SDK ms | delta ms (paired) | lazy ms | ' +
      'RSS after import MB | heap MB | memory MB | largest parts at import (KB) |',
    rows,
  );

  // What each dependency weighs across the bundles: the largest contribution and how many bundles carry it.
  const deps = new Map<string, { max: number; count: number }>();
  for (const b of built) {
    for (const [p, n] of b.parts) {
      const d = deps.get(p) ?? { max: 0, count: 0 };
      deps.set(p, { max: Math.max(d.max, n), count: d.count + 1 });
    }
  }
  console.log('');
  printReport(
    'What each part contributes (minified bytes in the output)',
    '| part | largest KB | bundles |',
    [...deps.entries()]
      .sort((x, y) => y[1].max - x[1].max)
      .slice(0, 30)
      .map(([p, d]) => `| ${p} | ${kb(d.max)} | ${d.count} |`),
  );

  // The cost of loading the source map at start, on the largest bundle.
  const largest = [...built].sort((x, y) => y.bytes - x.bytes)[0]!;
  const off = measureCold(largest);
  const on = measureCold(largest, '--enable-source-maps');
  console.log('');
  printReport(`Source maps at start, on the largest bundle (${largest.entry.id})`, '| NODE_OPTIONS | import ms | RSS after import MB |', [
    `| (none) | ${off.bundleMs.toFixed(1)} | ${mb(off.rss)} |`,
    `| --enable-source-maps | ${on.bundleMs.toFixed(1)} | ${mb(on.rss)} |`,
  ]);
}

runBench(main);
