/**
 * How every function is bundled: one definition read by the CDK construct
 * (lib/service-function.ts) and by `npm run bench:bundles`, so the bench measures
 * exactly what `cdk deploy` ships.
 */
import type { BuildOptions } from 'esbuild';
import type { ServiceManifest } from './manifest';

/** ESM output; the banner gives CommonJS dependencies bundled into it a `require`. */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

export const BUNDLING = {
  minify: true,
  /**
   * Written beside the bundle and shipped in the asset, but not loaded at start: `--enable-source-maps`
   * parses the whole map on every cold start (+19-28 ms and +9-18 MB on the largest bundle, BENCHMARKS.md).
   * Set NODE_OPTIONS=--enable-source-maps on one function to get mapped stack traces while debugging it.
   */
  sourceMap: true,
  target: 'node24',
  format: 'esm',
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  /** The Lambda runtime provides the AWS SDK v3. */
  externalModules: ['@aws-sdk/*'],
  /**
   * Code splitting (issue 31): what a handler reaches only through `await import()` (a provider's connector, the
   * providers document's schemas, the QR encoder) is written to chunks/ beside index.mjs and loaded on first use,
   * so a function's import carries no provider and a new rail grows no function of a stage that does not use it.
   */
  chunkNames: 'chunks/[name]-[hash]',
} as const;

/**
 * BUNDLING as esbuild's own options, for the bench and the tests that bundle a handler the way `cdk deploy`
 * does (NodejsFunction passes esbuild these, from the same BUNDLING): everything but where to read and write.
 */
export function esbuildOptions(): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    minify: BUNDLING.minify,
    target: BUNDLING.target,
    format: BUNDLING.format,
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    external: [...BUNDLING.externalModules],
    logLevel: 'error',
  };
}

/**
 * One function's build, as `cdk deploy` runs it (lib/service-function.ts) and the bench measures it: the handler
 * as `index.mjs` in outdir (Lambda's `index.handler`), the code it imports lazily in `chunks/*.mjs` beside it
 * (with the code those chunks share with it), source maps beside each. NodejsFunction's own bundling passes
 * esbuild `--outfile`, which cannot split, so the construct runs this build itself.
 */
export function functionBuildOptions(handlerFile: string, outdir: string): BuildOptions {
  return {
    ...esbuildOptions(),
    entryPoints: { index: handlerFile },
    outdir,
    splitting: true,
    chunkNames: BUNDLING.chunkNames,
    outExtension: { '.js': '.mjs' },
    sourcemap: BUNDLING.sourceMap,
  };
}

/**
 * Lambda memory of a function whose manifest entry names none. Measured (BENCHMARKS.md, "Bundles and
 * cold import" and "Load"): every function holds 63-68 MB resident after its import, so 256 MB leaves
 * ~190 MB for requests; Lambda gives CPU in proportion to memory (one vCPU at 1,769 MB), and the routes
 * whose requests burn more CPU (QR images, HTML pages, the 900 KB OpenAPI document, the queue consumers'
 * batches of ten) name 512 MB in the manifest.
 */
export const DEFAULT_MEMORY_MB = 256;

export interface FunctionEntry {
  /** Construct-friendly id: the route id, `<queue>Consumer`, `<job>Job`. */
  readonly id: string;
  readonly handlerFile: string;
  readonly memoryMb?: number;
  /** Files shipped beside the bundle (routes' `assets`). */
  readonly assets?: readonly string[];
}

/** Every Lambda the manifest defines: routes, the $default fallback, queue consumers and jobs. */
export function functionEntries(manifest: ServiceManifest): FunctionEntry[] {
  return [
    ...manifest.routes.map((r) => ({ id: r.id, handlerFile: r.handler, memoryMb: r.memoryMb, assets: r.assets })),
    { id: manifest.fallback.id, handlerFile: manifest.fallback.handler },
    ...manifest.queues.flatMap((q) =>
      q.consumer ? [{ id: `${q.id}Consumer`, handlerFile: q.consumer.handler, memoryMb: q.consumer.memoryMb }] : [],
    ),
    ...manifest.jobs.map((j) => ({ id: `${j.id}Job`, handlerFile: j.handler, memoryMb: j.memoryMb })),
    ...manifest.streams.map((c) => ({ id: `${c.id}Stream`, handlerFile: c.handler, memoryMb: c.memoryMb })),
  ];
}
