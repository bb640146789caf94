/**
 * One Lambda of the service (HTTP route, queue consumer or scheduled job): the
 * bundled handler, its KMS-encrypted log group, its own role with least-privilege
 * grants from the manifest's `access`, and its Errors/Throttles alarms.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AssetHashType, DockerImage, Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import * as esbuild from 'esbuild';
import type { Access } from '../shared/manifest/access';
import { queueUrlEnv } from '../shared/manifest/queues';
import { TABLE } from '../shared/manifest/table';
import { DEFAULT_MEMORY_MB, functionBuildOptions } from './bundling';
import { SERVICE_NAME, type StageConfig } from './stage-config';
import type { QueuePair } from './stateful-stack';

/**
 * The function's code asset: its handler built by lib/bundling.ts (split: index.mjs and the chunks it loads
 * lazily), with the route's asset files beside index.mjs. Local bundling only, like NodejsFunction's with
 * `forceDockerBundling: false`; the asset is hashed on its output, as NodejsFunction hashes its bundle.
 */
export function functionCode(root: string, handlerFile: string, assets: readonly string[] = []): lambda.Code {
  return lambda.Code.fromAsset(root, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('dummy'),
      // Never run (local bundling always succeeds), but part of CDK's staging cache key: without it every function
      // of the app (one source root, one image) would get the first function's bundle.
      command: ['esbuild', handlerFile, ...assets],
      local: {
        tryBundle(outputDir) {
          esbuild.buildSync(functionBuildOptions(path.join(root, handlerFile), outputDir));
          for (const f of assets) fs.copyFileSync(path.join(root, f), path.join(outputDir, path.basename(f)));
          return true;
        },
      },
    },
  });
}

export interface ServiceFunctionProps {
  readonly config: StageConfig;
  /** Handler file, relative to the repository root (process.cwd()); it exports `handler`. */
  readonly handlerFile: string;
  readonly description: string;
  readonly access: Access;
  readonly memoryMb?: number;
  readonly timeoutSeconds?: number;
  /** Files (relative to the repository root) copied beside the bundle: the manifest's route `assets`. */
  readonly assets?: readonly string[];
  readonly table: dynamodb.ITable;
  /** Every queue of the stack, keyed by queue id. */
  readonly queues: ReadonlyMap<string, QueuePair>;
  /** The queue this function consumes through an event source mapping (queue consumers only). */
  readonly eventSourceQueueId?: string;
  /**
   * Its own Errors and Throttles alarms (default). Routes go without: a crash, timeout or throttle of a route
   * reaches the merchant as a 5xx, which the HTTP API's 5xx alarm and the route's 5xx-rate alarm already page
   * for, and an alarm is $0.10 a month per metric (issue 22: 72 alarms the stage did not need).
   */
  readonly functionAlarms?: boolean;
  /** The function consumes the table's stream (its event source mapping grants dynamodb:ListStreams on *). */
  readonly readsTableStream?: boolean;
  readonly alarmTopic: sns.ITopic;
  /** Encrypts the function's log group (StageKeys.logs). */
  readonly logsKey: kms.IKey;
  /** The live providers document; read only by functions whose access says `providers: true`. */
  readonly providersSecret?: secretsmanager.ISecret;
  /** Reserved concurrency (stage config `concurrency`): the workers only; routes share the account's. */
  readonly reservedConcurrency?: number;
  readonly environment?: Record<string, string>;
}

/**
 * DynamoDB actions per manifest access level: what shared/adapters call, idempotency records included (GetItem,
 * BatchGetItem (the ledger fold re-reading a batch), Query, PutItem, UpdateItem, DeleteItem; TransactWriteItems
 * needs the per-item ones), reads on the table and each index by name, writes on the table. CDK's
 * grantReadData/grantReadWriteData would add Scan (DESIGN.md section 3: no Scan anywhere), BatchWriteItem,
 * DescribeTable and the stream actions (granted to the stream consumer alone by its event source), and `index/*`.
 */
const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;
const TABLE_WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'] as const;
/** On the table's key (DynamoDB uses it with the caller's credentials): CDK's table-grant set, wildcards spelled out. */
const TABLE_KEY_READ_ACTIONS = ['kms:Decrypt', 'kms:DescribeKey'];
const TABLE_KEY_WRITE_ACTIONS = [
  'kms:Encrypt',
  'kms:ReEncryptFrom',
  'kms:ReEncryptTo',
  'kms:GenerateDataKey',
  'kms:GenerateDataKeyWithoutPlaintext',
];

function grantTable(table: dynamodb.ITable, grantee: iam.IGrantable, mode: 'read' | 'readwrite') {
  const indexArns = TABLE.indexes.map((index) => `${table.tableArn}/index/${index.name}`);
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: [...TABLE_READ_ACTIONS], resources: [table.tableArn, ...indexArns] }),
  );
  if (mode === 'readwrite') {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: [...TABLE_WRITE_ACTIONS], resources: [table.tableArn] }),
    );
  }
  table.encryptionKey?.grant(grantee, ...TABLE_KEY_READ_ACTIONS, ...(mode === 'readwrite' ? TABLE_KEY_WRITE_ACTIONS : []));
}

export class ServiceFunction extends Construct {
  readonly fn: nodejs.NodejsFunction;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { config, access } = props;
    const root = process.cwd();

    const queueAccess = Object.entries(access.queues ?? {}).filter(
      (e): e is [string, 'send' | 'consume' | 'send+consume'] => e[1] !== undefined,
    );
    const queueOf = (queueId: string): QueuePair => {
      const pair = props.queues.get(queueId);
      if (!pair) throw new Error(`${id}: access names queue "${queueId}", which is not in the queue manifest`);
      return pair;
    };
    // Every queue the function touches gets its URL in the environment.
    const queueEnv: Record<string, string> = {};
    const touched = new Set([...queueAccess.map(([q]) => q), ...(props.eventSourceQueueId ? [props.eventSourceQueueId] : [])]);
    for (const queueId of touched) queueEnv[queueUrlEnv(queueId)] = queueOf(queueId).queue.queueUrl;
    // A function that dead-letters by itself (after its last retry) gets the DLQ's URL and send right.
    for (const queueId of access.deadLetters ?? []) queueEnv[`${queueUrlEnv(queueId)}_DLQ`] = queueOf(queueId).dlq.queueUrl;

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: config.logRetention,
      encryptionKey: props.logsKey,
      removalPolicy: config.removalPolicy,
    });
    // Its own role instead of CDK's default, which attaches AWSLambdaBasicExecutionRole (create any log group,
    // write to any log stream of the account): this one writes to the function's log group only.
    const role = new iam.Role(this, 'ServiceRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${id}: ${props.handlerFile}`.slice(0, 1000),
    });
    this.logGroup.grantWrite(role);

    this.fn = new nodejs.NodejsFunction(this, 'Function', {
      // Built by lib/bundling.ts (code splitting), which NodejsFunction's own esbuild call (--outfile) cannot do.
      code: functionCode(root, props.handlerFile, props.assets),
      handler: 'index.handler',
      description: props.description.slice(0, 256),
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memoryMb ?? DEFAULT_MEMORY_MB,
      timeout: Duration.seconds(props.timeoutSeconds ?? 10),
      tracing: config.tracing === 'active' ? lambda.Tracing.ACTIVE : lambda.Tracing.PASS_THROUGH,
      logGroup: this.logGroup,
      // JSON format: Powertools' lines (and EMF) are JSON already and pass as they are; Lambda's own lines
      // follow the stage's level. The application level lets everything through: Powertools filters its own.
      loggingFormat: lambda.LoggingFormat.JSON,
      systemLogLevelV2: config.systemLogLevel === 'WARN' ? lambda.SystemLogLevel.WARN : lambda.SystemLogLevel.INFO,
      applicationLogLevelV2: lambda.ApplicationLogLevel.TRACE,
      role,
      reservedConcurrentExecutions: props.reservedConcurrency,
      environment: {
        STAGE: config.stage,
        TABLE_NAME: props.table.tableName,
        ALLOWED_KEY_MODES: config.allowedKeyModes.join(','),
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: config.metricsNamespace,
        POWERTOOLS_LOG_LEVEL: config.powertoolsLogLevel,
        ...(access.providers && props.providersSecret ? { PROVIDERS_SECRET_NAME: props.providersSecret.secretName } : {}),
        ...queueEnv,
        ...props.environment,
      },
    });

    if (access.table !== 'none') grantTable(props.table, this.fn, access.table);

    for (const [queueId, mode] of queueAccess) {
      const { queue } = queueOf(queueId);
      if (mode === 'send' || mode === 'send+consume') queue.grantSendMessages(this.fn);
      // Consuming the event-source queue is granted by the SqsEventSource itself; any
      // other queue a function consumes it polls itself, so it gets the IAM grant only.
      if ((mode === 'consume' || mode === 'send+consume') && queueId !== props.eventSourceQueueId) {
        queue.grantConsumeMessages(this.fn);
      }
    }

    for (const queueId of access.deadLetters ?? []) queueOf(queueId).dlq.grantSendMessages(this.fn);

    if (access.providers) {
      if (!props.providersSecret) throw new Error(`${id}: access says providers, but the stack has no providers secret`);
      // GetSecretValue on this secret only (what Powertools' SecretsProvider calls); kms:Decrypt on its key, and only
      // through Secrets Manager. On the role, not the key policy: the key lives in the stateful stack (no cycle).
      const secret = props.providersSecret;
      role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }));
      if (secret.encryptionKey) {
        role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            actions: ['kms:Decrypt'],
            resources: [secret.encryptionKey.keyArn],
            conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com` } },
          }),
        );
      }
    }

    NagSuppressions.addResourceSuppressions(this.fn, [
      {
        id: 'AwsSolutions-L1',
        reason: 'nodejs24.x, the newest runtime this CDK version knows (issue 25: LTS until 2028-04); flagged again when a newer one ships',
      },
      {
        id: 'PCI.DSS.321-LambdaInsideVPC',
        reason: 'No VPC resources to reach: only DynamoDB, SQS and X-Ray APIs over TLS with IAM, and webhooks to public HTTPS endpoints',
      },
    ]);
    const sendsToQueue = queueAccess.some(([, mode]) => mode !== 'consume') || (access.deadLetters ?? []).length > 0;
    NagSuppressions.addResourceSuppressions(
      role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason: props.readsTableStream
            ? "Resource * is only X-Ray PutTraceSegments/PutTelemetryRecords and the stream event source's " +
              'dynamodb:ListStreams, which take no ARN'
            : 'Resource * is only X-Ray PutTraceSegments/PutTelemetryRecords (active tracing), which take no ARN',
          appliesTo: ['Resource::*'],
        },
        ...(sendsToQueue
          ? [
              {
                id: 'AwsSolutions-IAM5',
                reason: "CDK's grantSendMessages on a KMS-encrypted queue: these key actions on the queues key's ARN only",
                appliesTo: ['Action::kms:ReEncrypt*', 'Action::kms:GenerateDataKey*'],
              },
            ]
          : []),
        {
          id: 'PCI.DSS.321-IAMNoInlinePolicy',
          reason: "CDK's DefaultPolicy of this function's own role: its manifest grants, attached to no other principal",
        },
      ],
      true,
    );

    if (props.functionAlarms === false) return;
    const action = new SnsAction(props.alarmTopic);
    const period = config.alarms.period;
    new cloudwatch.Alarm(this, 'ErrorsAlarm', {
      alarmDescription: `${id}: Lambda errors (${props.handlerFile})`,
      metric: this.fn.metricErrors({ period, statistic: 'Sum' }),
      threshold: config.alarms.functionErrors,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: config.alarms.evaluationPeriods,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(action);
    new cloudwatch.Alarm(this, 'ThrottlesAlarm', {
      alarmDescription: `${id}: Lambda throttles (${props.handlerFile})`,
      metric: this.fn.metricThrottles({ period, statistic: 'Sum' }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(action);
  }
}
