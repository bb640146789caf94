/**
 * Synthesizes a stage the way `cdk synth` does before `cdk deploy` (cdk.json's context, and the CLI's defaults: path
 * and asset metadata, version reporting), bundling skipped, and reads every template it wrote, nested stacks
 * included. A projection adds what is expected next (NEXT: the dLocal and Efí callbacks, a payouts batch route, two
 * more metered providers) so the tripwire fires before they arrive.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { buildApp } from './app';
import { MANIFEST, type ServiceManifest } from './manifest';
import { PROVIDERS, type Stage } from './stage-config';
import type { CfnTemplate, StackTemplate } from './template-values';
import type { RouteDefinition } from '../shared/manifest/routes';

/** The context the cdk CLI gives the app on `cdk synth` / `cdk deploy` (its defaults), plus cdk.json's. */
export function cliContext(stage: Stage): Record<string, unknown> {
  const cdkJson = JSON.parse(fs.readFileSync(path.join(process.cwd(), 'cdk.json'), 'utf8')) as { context?: object };
  return {
    ...cdkJson.context,
    stage,
    'aws:cdk:enable-path-metadata': true,
    'aws:cdk:enable-asset-metadata': true,
    'aws:cdk:version-reporting': true,
    'aws:cdk:bundling-stacks': [],
  };
}

export interface Projection {
  /** Provider callback routes added: copies of Adyen's notifications route (a POST with provider access). */
  readonly callbacks: number;
  /** Merchant routes added: copies of the create-payout route. */
  readonly routes: number;
  /** Providers added to the metered ones (their alarms and dashboard graphs). */
  readonly providers: readonly string[];
}

/** The next arrivals (issue 34): dLocal's and Efí's callbacks, a payouts batch route, and those two providers. */
export const NEXT: Projection = { callbacks: 5, routes: 1, providers: ['dlocal', 'efi'] };

/** The manifest with the projection's routes added. */
export function withProjectedRoutes(manifest: ServiceManifest, projection: Projection): ServiceManifest {
  const model = (id: string) => {
    const route = manifest.routes.find((r) => r.id === id);
    if (!route) throw new Error(`no ${id} route to copy`);
    return route;
  };
  const copies = (id: string, n: number, path: (i: number) => string): RouteDefinition[] =>
    Array.from({ length: n }, (_, i) => ({
      ...model(id),
      id: `projected-${id}-${i + 1}`,
      path: path(i + 1),
      summary: `Projected copy ${i + 1} of ${id} (deploy-limits headroom only).`,
    }));
  return {
    ...manifest,
    routes: [
      ...manifest.routes,
      ...copies('adyenNotifications', projection.callbacks, (i) => `/providers/projected-${i}/{token}/notifications`),
      ...copies('createPayout', projection.routes, (i) => `/api/v1/projected-${i}/payouts`),
    ],
  };
}

/**
 * Bundling skipped, an asset's metadata names its source directory; bundled, `asset.<64 hex digits>`: the bytes the
 * real template has in addition for each function's code (with it, the figures match `cdk synth -c stage=live` to
 * the byte).
 */
function unbundledBytes(template: CfnTemplate): number {
  const staged = 'asset.'.length + 64;
  return Object.values(template.Resources ?? {}).reduce((sum, r) => {
    const metadata = (r as { Metadata?: Record<string, unknown> }).Metadata;
    const assetPath = metadata?.['aws:asset:path'];
    const code = metadata?.['aws:asset:property'] === 'Code' && typeof assetPath === 'string' && !assetPath.startsWith('asset.');
    return code ? sum + staged - JSON.stringify(assetPath).length + 2 : sum;
  }, 0);
}

/** Every template of the stage's app (top-level and nested), with the size of the file synth wrote. */
export function synthesizeStage(stage: Stage, projection?: Projection): StackTemplate[] {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), `deploy-limits-${stage}-`));
  try {
    const app = new App({ outdir, context: cliContext(stage) });
    const manifest = projection ? withProjectedRoutes(MANIFEST, projection) : MANIFEST;
    // Once dLocal and Efí are metered, projecting them again adds nothing (no duplicate alarms).
    const providers = projection ? [...new Set<string>([...PROVIDERS, ...projection.providers])] : PROVIDERS;
    buildApp(app, stage, manifest, { providers });
    app.synth();
    const stacks = app.node.findAll().filter((c): c is Stack => Stack.isStack(c));
    const name = (s: Stack): string => (s.nestedStackParent ? `${name(s.nestedStackParent)}/${s.node.id}` : s.stackName);
    return stacks.map((s) => {
      const file = path.join(outdir, s.templateFile);
      const parent = s.nestedStackParent;
      const template = JSON.parse(fs.readFileSync(file, 'utf8')) as CfnTemplate;
      return {
        name: name(s),
        template,
        bytes: fs.statSync(file).size + unbundledBytes(template),
        ...(parent && s.nestedStackResource
          ? { parent: { name: name(parent), logicalId: parent.getLogicalId(s.nestedStackResource as never) } }
          : {}),
      };
    });
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}
