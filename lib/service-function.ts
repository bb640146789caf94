/**
 * One Lambda of the service (HTTP route, queue consumer or scheduled job): the
 * bundled handler, its log group, least-privilege grants from the manifest's
 * `access`, and its Errors/Throttles alarms.
 */
import * as path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { Access } from '../shared/manifest/access';
import { queueUrlEnv } from '../shared/manifest/queues';
import { BUNDLING, DEFAULT_MEMORY_MB } from './bundling';
import { SERVICE_NAME, type StageConfig } from './stage-config';
import type { QueuePair } from './stateful-stack';

/** Bundling hooks that copy the route's asset files into the Lambda asset, beside index.mjs. */
export function copyAssets(files: readonly string[]): nodejs.ICommandHooks {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir, outputDir) => files.map((f) => `cp "${path.join(inputDir, f)}" "${path.join(outputDir, path.basename(f))}"`),
  };
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
  readonly alarmTopic: sns.ITopic;
  readonly environment?: Record<string, string>;
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
      removalPolicy: config.removalPolicy,
    });

    this.fn = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(root, props.handlerFile),
      handler: 'handler',
      projectRoot: root,
      depsLockFilePath: path.join(root, 'package-lock.json'),
      description: props.description.slice(0, 256),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memoryMb ?? DEFAULT_MEMORY_MB,
      timeout: Duration.seconds(props.timeoutSeconds ?? 10),
      tracing: lambda.Tracing.ACTIVE,
      logGroup: this.logGroup,
      environment: {
        STAGE: config.stage,
        TABLE_NAME: props.table.tableName,
        ALLOWED_KEY_MODES: config.allowedKeyModes.join(','),
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: config.metricsNamespace,
        POWERTOOLS_LOG_LEVEL: config.powertoolsLogLevel,
        ...queueEnv,
        ...props.environment,
      },
      bundling: {
        ...BUNDLING,
        format: nodejs.OutputFormat.ESM,
        mainFields: [...BUNDLING.mainFields],
        externalModules: [...BUNDLING.externalModules],
        forceDockerBundling: false,
        commandHooks: copyAssets(props.assets ?? []),
      },
    });

    if (access.table === 'read') props.table.grantReadData(this.fn);
    else if (access.table === 'readwrite') props.table.grantReadWriteData(this.fn);

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
