/**
 * CDK assertions on the synthesized templates, built in-process from the same
 * manifests as bin/app.ts. Bundling is skipped (`aws:cdk:bundling-stacks: []`).
 */
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { buildApp, type BuiltApp } from '../../lib/app';
import { DEFAULT_MEMORY_MB, functionEntries } from '../../lib/bundling';
import { MANIFEST, type ServiceManifest } from '../../lib/manifest';
import { parseStage, stageConfig, type Stage } from '../../lib/stage-config';
import { isMandateOrDisputeRoute, isProviderCallback } from '../../lib/stateless-stack';
import { JOBS } from '../../shared/manifest/jobs';
import { STREAM_CONSUMERS } from '../../shared/manifest/streams';
import { dlqName, queueDefinitions, queueName, queueUrlEnv, type QueueDefinition } from '../../shared/manifest/queues';
import { FALLBACK_ROUTE, ROUTES, type RouteDefinition } from '../../shared/manifest/routes';
import { TABLE } from '../../shared/manifest/table';
import { templateOf } from '../support/cdk-assertions';

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };

interface Built extends BuiltApp {
  readonly statefulTemplate: Template;
  /** The stateless stack's own template (the API, the routes' functions, the stream consumers, monitoring). */
  readonly statelessTemplate: Template;
  /** It and its nested stacks' (the workers, the provider callbacks' functions: lib/stateless-stack.ts). */
  readonly statelessTemplates: Template[];
}

function build(stage: Stage, manifest?: ServiceManifest): Built {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const built = buildApp(app, stage, manifest);
  return {
    ...built,
    statefulTemplate: templateOf(built.stateful),
    statelessTemplate: templateOf(built.stateless),
    statelessTemplates: [
      built.stateless,
      built.stateless.workers,
      built.stateless.providerCallbacks,
      built.stateless.mandatesAndDisputes,
    ].map((s) => templateOf(s)),
  };
}

const cache = new Map<Stage, Built>();
const built = (stage: Stage) => {
  let b = cache.get(stage);
  if (!b) cache.set(stage, (b = build(stage)));
  return b;
};

const routes = ROUTES as readonly RouteDefinition[];
const consumerCount = (queues: readonly QueueDefinition[]) => queues.filter((q) => q.consumer).length;

function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

/** The template of the stack (top-level or nested) that holds the construct, and its logical id there. */
function placed(construct: IFunction | NonNullable<IFunction['role']>): { template: Template; id: string } {
  const stack = Stack.of(construct);
  return { template: templateOf(stack), id: logicalId(stack, construct) };
}

/** Resources of a type across the stateless stack and its nested stacks. */
function statelessResources(b: Built, type: string, props?: object): Resource[] {
  return b.statelessTemplates.flatMap((t) => Object.values(t.findResources(type, props)) as Resource[]);
}

/** Every IAM action in the policies attached to the function's role. */
function actionsOf(_b: Built, fn: IFunction): string[] {
  if (!fn.role) throw new Error('function without a role');
  const { template, id: roleId } = placed(fn.role);
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Resource[];
  return policies
    .filter((p) => (p.Properties.Roles as { Ref?: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => (p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap((s) => [s.Action].flat()));
}

function functionOf(b: Built, key: string) {
  const fn = b.stateless.functions.get(key);
  if (!fn) throw new Error(`no function ${key}`);
  return fn;
}

describe.each(['sandbox', 'live'] as const)('%s stage', (stage) => {
  const config = stageConfig(stage);

  test('stack names carry the stage', () => {
    const b = built(stage);
    expect(b.stateful.stackName).toBe(`LatamPayments-${stage}-Stateful`);
    expect(b.stateless.stackName).toBe(`LatamPayments-${stage}-Stateless`);
    expect(b.stateless.dependencies).toContain(b.stateful);
  });

  test('one API route per manifest entry, each integrated with its own function', () => {
    const b = built(stage);
    const t = b.statelessTemplate;
    const all = t.findResources('AWS::ApiGatewayV2::Route') as Record<string, Resource>;
    const integrations = t.findResources('AWS::ApiGatewayV2::Integration') as Record<string, Resource>;
    const targetFunction = (route: Resource) => {
      const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
      return integrations[integrationId]?.Properties.IntegrationUri;
    };
    // The function's ARN as this stack reads it: its own GetAtt, or a nested stack's output for the provider callbacks.
    const arnOf = (id: string) => b.stateless.resolve(functionOf(b, id).functionArn) as unknown;
    for (const route of routes) {
      const matches = Object.values(all).filter((r) => r.Properties.RouteKey === `${route.method} ${route.path}`);
      expect(matches).toHaveLength(1);
      expect(targetFunction(matches[0]!)).toEqual(arnOf(route.id));
      const nested = Stack.of(functionOf(b, route.id)) !== b.stateless;
      expect([route.id, nested]).toEqual([route.id, isProviderCallback(route) || isMandateOrDisputeRoute(route)]);
    }
    const fallback = Object.values(all).filter((r) => r.Properties.RouteKey === '$default');
    expect(fallback).toHaveLength(1);
    expect(targetFunction(fallback[0]!)).toEqual(arnOf(FALLBACK_ROUTE.id));
    expect(Object.keys(all)).toHaveLength(routes.length + 1);
  });

  test('memory: every function sized by its manifest entry, 256 MB unless the entry names more', () => {
    const b = built(stage);
    const entries = functionEntries(MANIFEST);
    expect(entries).toHaveLength(statelessResources(b, 'AWS::Lambda::Function').length);
    for (const e of entries) {
      const { template, id } = placed(functionOf(b, e.id));
      const fn = template.toJSON().Resources[id] as Resource;
      expect([e.id, fn.Properties.MemorySize]).toEqual([e.id, e.memoryMb ?? DEFAULT_MEMORY_MB]);
    }
    expect(DEFAULT_MEMORY_MB).toBe(256);
  });

  test('the table streams NEW_IMAGE; only pending credits invoke the ledger fold, from TRIM_HORIZON, bisecting a failing batch', () => {
    const b = built(stage);
    b.statefulTemplate.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } });
    const fold = functionOf(b, 'ledgerFoldStream');
    b.statelessTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(b.stateless, fold) },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 500,
      MaximumBatchingWindowInSeconds: 30,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 5,
      FilterCriteria: {
        Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['pending_credit'] } } } }) }],
      },
    });
    expect(actionsOf(b, fold)).toEqual(
      expect.arrayContaining(['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:BatchGetItem']),
    );
  });

  test('functions: one per route + fallback + consumer + job + stream consumer; node 22, arm64, X-Ray, own log group', () => {
    const b = built(stage);
    const fns = statelessResources(b, 'AWS::Lambda::Function');
    expect(fns).toHaveLength(routes.length + 1 + consumerCount(queueDefinitions()) + JOBS.length + STREAM_CONSUMERS.length);
    for (const fn of fns) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: stage === 'sandbox' ? 'Active' : 'PassThrough' },
        Handler: 'index.handler',
        LoggingConfig: {
          LogGroup: { Ref: expect.any(String) },
          LogFormat: 'JSON',
          ApplicationLogLevel: 'TRACE',
          SystemLogLevel: stage === 'sandbox' ? 'INFO' : 'WARN',
        },
      });
      expect(fn.Properties.Environment.Variables).toMatchObject({
        STAGE: stage,
        TABLE_NAME: expect.anything(),
        ALLOWED_KEY_MODES: stage === 'live' ? 'live' : 'test',
        POWERTOOLS_SERVICE_NAME: 'latam-payments',
        POWERTOOLS_METRICS_NAMESPACE: `LatamPayments/${stage}`,
        POWERTOOLS_LOG_LEVEL: stage === 'live' ? 'WARN' : 'INFO',
      });
      // Source maps ship in the asset but are not parsed on every cold start (lib/bundling.ts).
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBeUndefined();
    }
    for (const route of routes) {
      const { template, id } = placed(functionOf(b, route.id));
      expect((template.toJSON().Resources[id] as Resource).Properties).toMatchObject({
        Description: expect.stringMatching(new RegExp(`^${route.method} ${route.path.replace(/[{}]/g, '.')}:`)),
        MemorySize: route.memoryMb ?? DEFAULT_MEMORY_MB,
        Timeout: route.timeoutSeconds ?? 10,
      });
    }
    for (const t of b.statelessTemplates) t.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: stage === 'live' ? 365 : 30 });
  });

  test('the $default stage is throttled and logged', () => {
    built(stage).statelessTemplate.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: config.apiThrottle.rateLimit,
        ThrottlingBurstLimit: config.apiThrottle.burstLimit,
      },
      AccessLogSettings: { DestinationArn: Match.anyValue() },
    });
  });

  test('every queue has a DLQ with the manifest redrive, retention, visibility and encryption', () => {
    const t = built(stage).statefulTemplate;
    // SSE-KMS with the stage's queues key (lib/encryption.ts).
    const kms = { KmsMasterKeyId: { 'Fn::GetAtt': [logicalId(built(stage).stateful, built(stage).stateful.keys.queues), 'Arn'] } };
    const queues = t.findResources('AWS::SQS::Queue') as Record<string, Resource>;
    const byName = (name: string) => Object.entries(queues).find(([, q]) => q.Properties.QueueName === name);
    expect(Object.keys(queues)).toHaveLength(queueDefinitions().length * 2);
    for (const def of queueDefinitions()) {
      const dlq = byName(dlqName(config.prefix, def.id));
      const queue = byName(queueName(config.prefix, def.id));
      expect(dlq).toBeDefined();
      expect(queue).toBeDefined();
      expect(queue![1].Properties).toMatchObject({
        VisibilityTimeout: def.visibilityTimeoutSeconds,
        MessageRetentionPeriod: def.retentionDays * 86400,
        ...kms,
        RedrivePolicy: { maxReceiveCount: def.maxReceiveCount, deadLetterTargetArn: { 'Fn::GetAtt': [dlq![0], 'Arn'] } },
      });
      expect(dlq![1].Properties).toMatchObject({ MessageRetentionPeriod: def.dlqRetentionDays * 86400, ...kms });
      expect(queue![1].DeletionPolicy).toBe(stage === 'live' ? 'Retain' : 'Delete');
    }
    // enforceSSL: a deny on aws:SecureTransport=false for every queue
    const policies = Object.values(t.findResources('AWS::SQS::QueuePolicy')) as Resource[];
    expect(policies).toHaveLength(queueDefinitions().length * 2);
    for (const p of policies) {
      expect(p.Properties.PolicyDocument.Statement).toEqual(
        expect.arrayContaining([expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      );
    }
  });

  test('every DLQ alarms to the alarm topic when a message lands', () => {
    const b = built(stage);
    const t = b.statefulTemplate;
    t.hasResourceProperties('AWS::SNS::Topic', { TopicName: `latam-payments-${stage}-alarms` });
    const topicId = logicalId(b.stateful, b.stateful.alarmTopic);
    for (const def of queueDefinitions()) {
      const dlqId = logicalId(b.stateful, b.stateful.queues.get(def.id)!.dlq);
      t.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [{ Ref: topicId }],
      });
    }
  });

  test('API 5xx, and Errors/Throttles alarms for every function but the routes (their 5xx alarms cover them); the ApiUrl output', () => {
    const b = built(stage);
    const t = b.statelessTemplate;
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Threshold: config.alarms.api5xx,
      AlarmActions: [Match.anyValue()],
    });
    const fnCount = b.stateless.functions.size - routes.length - 1; // the routes and the $default fallback
    const alarms = (props: object) => statelessResources(b, 'AWS::CloudWatch::Alarm', { Properties: props });
    expect(alarms({ MetricName: 'Throttles', Threshold: 0 })).toHaveLength(fnCount);
    expect(alarms({ MetricName: 'Errors' })).toHaveLength(fnCount);
    t.hasOutput('ApiUrl', { Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^HttpApi'), 'ApiEndpoint'] } });
  });

  test('the table: keys, GSIs, TTL, point-in-time recovery; deletion protection in live only', () => {
    const t = built(stage).statefulTemplate;
    t.resourceCountIs('AWS::DynamoDB::Table', 1);
    t.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: `latam-payments-${stage}`,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      GlobalSecondaryIndexes: TABLE.indexes.map((i) =>
        Match.objectLike({
          IndexName: i.name,
          KeySchema: [
            { AttributeName: i.partitionKey, KeyType: 'HASH' },
            { AttributeName: i.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: i.projection },
        }),
      ),
    });
    const table = Object.values(t.findResources('AWS::DynamoDB::Table'))[0] as Resource;
    if (stage === 'live') {
      expect(table.Properties.DeletionProtectionEnabled).toBe(true);
      expect(table.DeletionPolicy).toBe('Retain');
    } else {
      expect(table.Properties.DeletionProtectionEnabled).not.toBe(true);
      expect(table.DeletionPolicy).toBe('Delete');
    }
  });

  test('least privilege: table read gets no writes, readwrite does, none gets no DynamoDB at all', () => {
    const b = built(stage);
    const reader = routes.find((r) => r.access.table === 'read');
    const writer = routes.find((r) => r.access.table === 'readwrite');
    expect(reader && writer).toBeTruthy();
    const readActions = actionsOf(b, functionOf(b, reader!.id));
    expect(readActions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
    expect(readActions).not.toContain('dynamodb:PutItem');
    expect(readActions).not.toContain('dynamodb:UpdateItem');
    expect(actionsOf(b, functionOf(b, writer!.id))).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem']),
    );
    const fallbackActions = actionsOf(b, functionOf(b, FALLBACK_ROUTE.id));
    expect(fallbackActions.filter((a) => a.startsWith('dynamodb:'))).toEqual([]);
    expect(fallbackActions.filter((a) => a.startsWith('sqs:'))).toEqual([]);
  });
});

describe('listing index migration (issue 31)', () => {
  test('-c keepRetiredIndexes=true keeps GSI1 (ALL) beside GSI1K (KEYS_ONLY); without it only the manifest indexes', () => {
    const indexesOf = (stateful: Template) => {
      const table = Object.values(stateful.findResources('AWS::DynamoDB::Table'))[0] as Resource;
      return (table.Properties.GlobalSecondaryIndexes as Array<{ IndexName: string; Projection: { ProjectionType: string } }>).map(
        (i) => `${i.IndexName}:${i.Projection.ProjectionType}`,
      );
    };
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], keepRetiredIndexes: 'true' } });
    expect(indexesOf(templateOf(buildApp(app, 'sandbox').stateful)).sort()).toEqual(['GSI1:ALL', 'GSI1K:KEYS_ONLY', 'GSI2:ALL']);
    // Without it: the sandbox stage as built with no context, as the tests above read it.
    expect(indexesOf(built('sandbox').statefulTemplate).sort()).toEqual(['GSI1K:KEYS_ONLY', 'GSI2:ALL']);
  });
});

describe('stage from context', () => {
  test('defaults to sandbox and rejects anything else', () => {
    expect(parseStage(undefined)).toBe('sandbox');
    expect(parseStage('live')).toBe('live');
    expect(() => parseStage('prod')).toThrow(/Unknown stage/);
  });
});

describe('manifest with a queue consumer, a job and a sending route', () => {
  const handler = 'functions/system/health.handler.ts';
  const webhooks = queueDefinitions().find((q) => q.id === 'webhooks')!;
  const manifest: ServiceManifest = {
    ...MANIFEST,
    routes: [
      ...MANIFEST.routes,
      {
        ...routes[0]!,
        id: 'sender',
        method: 'POST',
        path: '/test/send',
        access: { table: 'readwrite', queues: { webhooks: 'send' } },
      },
    ],
    queues: [
      ...MANIFEST.queues.filter((q) => q.id !== 'webhooks'),
      {
        ...webhooks,
        consumer: {
          handler,
          batchSize: 10,
          maxBatchingWindowSeconds: 2,
          timeoutSeconds: 30,
          access: { table: 'readwrite', queues: { webhooks: 'consume' } },
        },
      },
    ],
    jobs: [{ id: 'sweeper', description: 'test job', handler, everyMinutes: 5, timeoutSeconds: 60, access: { table: 'readwrite' } }],
  };
  let b: Built;
  beforeAll(() => {
    b = build('sandbox', manifest);
  });

  test('all are built and wired', () => {
    const t = b.statelessTemplate;
    const consumers = manifest.queues.filter((q) => q.consumer).length;
    expect(statelessResources(b, 'AWS::Lambda::Function')).toHaveLength(
      manifest.routes.length + 1 + consumers + manifest.jobs.length + manifest.streams.length,
    );
    const queueId = logicalId(b.stateful, b.stateful.queues.get('webhooks')!.queue);
    const consumer = functionOf(b, 'webhooksConsumer');
    // The workers live in their nested stack (lib/stateless-stack.ts), which imports the queue from the stateful stack.
    const workers = templateOf(b.stateless.workers);
    expect(Stack.of(consumer)).toBe(b.stateless.workers);
    workers.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(b.stateless.workers, consumer) },
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 2,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp(queueId) },
    });
    expect(actionsOf(b, consumer)).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage']));
    workers.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(b.stateless.workers, functionOf(b, 'sweeperJob')), 'Arn'] } })],
    });
    t.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^POST /test/send:'),
      Environment: { Variables: Match.objectLike({ [queueUrlEnv('webhooks')]: Match.anyValue() }) },
    });
    const senderActions = actionsOf(b, functionOf(b, 'sender'));
    expect(senderActions).toContain('sqs:SendMessage');
    expect(senderActions).not.toContain('sqs:ReceiveMessage');
    t.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'POST /test/send' });
  });

  test('a consumer that outlives its queue visibility timeout is rejected', () => {
    const bad: ServiceManifest = {
      ...manifest,
      queues: manifest.queues.map((q) => (q.id === 'webhooks' ? { ...q, consumer: { ...q.consumer!, timeoutSeconds: 900 } } : q)),
    };
    expect(() => buildApp(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'sandbox', bad)).toThrow(/visibilityTimeoutSeconds/);
  });
});
