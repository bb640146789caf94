/**
 * The whole CDK app for one stage: a stateful stack (table, queues, alarm topic)
 * and a stateless stack (API, functions, schedules) that uses it. bin/app.ts
 * calls this; the infra tests call it too.
 */
import { Tags, type App } from 'aws-cdk-lib';
import { EdgeStack, edgeSettings, edgeStackName } from './edge-stack';
import { MANIFEST, type ServiceManifest } from './manifest';
import { Monitoring } from './monitoring';
import { stackName, stageConfig, type Stage, type StageConfig } from './stage-config';
import { StatefulStack } from './stateful-stack';
import { StatelessStack } from './stateless-stack';

export interface BuiltApp {
  readonly config: StageConfig;
  readonly stateful: StatefulStack;
  readonly stateless: StatelessStack;
  /** Alarms and dashboard, in the stateless stack. */
  readonly monitoring: Monitoring;
  /** CloudFront + WAF in us-east-1, only with `-c edge=true` (lib/edge-stack.ts). */
  readonly edge?: EdgeStack;
}

/** Context key of the public base URL the functions write into links (checkout_url, QR images, redirects). */
export const PUBLIC_BASE_URL_CONTEXT = 'publicBaseUrl';

/**
 * `-c publicBaseUrl=https://api.example.com`: the origin merchants and shoppers reach the API at when it is not
 * the API's own endpoint (the edge's domain). Absent: the functions use the HTTP API's endpoint.
 */
export function publicBaseUrl(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(String(value));
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:' || url.pathname !== '/' || url.search || url.hash || url.username) {
    throw new Error(`-c ${PUBLIC_BASE_URL_CONTEXT}=${JSON.stringify(value)}: an https:// origin, without a path (https://api.example.com)`);
  }
  return url.origin;
}

export interface BuildOptions {
  /** The live providers metered (alarms, dashboard); default PROVIDERS. lib/deploy-limits-synth.ts projects more. */
  readonly providers?: readonly string[];
}

/** Env-agnostic stacks: no account/region lookups, so synth runs offline. */
export function buildApp(app: App, stage: Stage, manifest: ServiceManifest = MANIFEST, options: BuildOptions = {}): BuiltApp {
  const config = stageConfig(stage);
  const stateful = new StatefulStack(app, stackName(stage, 'Stateful'), {
    config,
    queues: manifest.queues,
    description: `LatamPayments ${stage}: DynamoDB table, SQS queues and DLQs, alarm topic`,
    terminationProtection: stage === 'live',
  });
  const stateless = new StatelessStack(app, stackName(stage, 'Stateless'), {
    config,
    manifest,
    table: stateful.table,
    queues: stateful.queues,
    alarmTopic: stateful.alarmTopic,
    logsKey: stateful.keys.logs,
    providersSecret: stateful.providersSecret,
    publicBaseUrl: publicBaseUrl(app.node.tryGetContext(PUBLIC_BASE_URL_CONTEXT)),
    description: `LatamPayments ${stage}: HTTP API, Lambda functions, schedules, alarms`,
  });
  stateless.addStackDependency(stateful);
  const monitoring = new Monitoring(stateless, 'Monitoring', {
    config,
    manifest,
    httpApi: stateless.httpApi,
    functions: stateless.functions,
    table: stateful.table,
    queues: stateful.queues,
    alarmTopic: stateful.alarmTopic,
    providers: options.providers,
  });
  const edgeConfig = edgeSettings((key) => app.node.tryGetContext(key), stage);
  const edge = edgeConfig
    ? new EdgeStack(app, edgeStackName(stage), {
        config,
        settings: edgeConfig,
        description: `LatamPayments ${stage}: CloudFront and AWS WAF in front of the HTTP API`,
        terminationProtection: stage === 'live',
      })
    : undefined;
  for (const stack of [stateful, stateless, ...(edge ? [edge] : [])]) {
    Tags.of(stack).add('service', 'latam-payments');
    Tags.of(stack).add('stage', stage);
  }
  return { config, stateful, stateless, monitoring, edge };
}
