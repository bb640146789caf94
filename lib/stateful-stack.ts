/**
 * Everything that holds data: the one DynamoDB table (shared/manifest/table.ts),
 * every SQS queue with its dead-letter queue (shared/manifest/queues.ts), and the
 * alarm topic with the DLQ alarms (a message in a DLQ is always worth a look), all
 * encrypted with the stage's customer-managed KMS keys (lib/encryption.ts).
 */
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { dlqName, queueName, type QueueDefinition } from '../shared/manifest/queues';
import { RETIRED_INDEXES, TABLE } from '../shared/manifest/table';
import { StageKeys } from './encryption';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { providersSecret } from './providers-secret';
import { pascal } from './manifest';
import type { StageConfig } from './stage-config';

export interface QueuePair {
  readonly definition: QueueDefinition;
  readonly queue: sqs.Queue;
  readonly dlq: sqs.Queue;
}

/** Context key: `-c keepRetiredIndexes=true` keeps the table manifest's RETIRED_INDEXES in the table. */
export const KEEP_RETIRED_INDEXES_CONTEXT = 'keepRetiredIndexes';

export interface StatefulStackProps extends StackProps {
  readonly config: StageConfig;
  readonly queues: readonly QueueDefinition[];
}

export class StatefulStack extends Stack {
  readonly table: dynamodb.Table;
  /** Keyed by queue id. */
  readonly queues: ReadonlyMap<string, QueuePair>;
  readonly alarmTopic: sns.Topic;
  readonly keys: StageKeys;
  /** latam-payments/<stage>/providers: the live providers document (DESIGN.md section 8). */
  readonly providersSecret: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.keys = new StageKeys(this, 'Keys', { config });
    this.providersSecret = providersSecret(this, config, this.keys.providers);

    this.table = new dynamodb.Table(this, TABLE.id, {
      tableName: config.tableName,
      partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TABLE.ttlAttribute,
      // The fold of pending credits into balances reads it (shared/manifest/streams.ts).
      stream: dynamodb.StreamViewType[TABLE.streamViewType],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.keys.table,
      deletionProtection: config.deletionProtection,
      removalPolicy: config.removalPolicy,
    });
    // `-c keepRetiredIndexes=true`: the first deploy of an index migration keeps the retired ones beside their
    // replacement (CloudFormation creates or deletes one GSI per update; docs/operations.md, listing index).
    const keepRetired = String(this.node.tryGetContext(KEEP_RETIRED_INDEXES_CONTEXT)) === 'true';
    for (const index of [...TABLE.indexes, ...(keepRetired ? RETIRED_INDEXES : [])]) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType[index.projection],
      });
    }

    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'The table the ops CLI targets: npm run cli -- ... --table <this> --region <region>',
    });

    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', {
      topicName: `${config.prefix}-alarms`,
      displayName: `LatamPayments ${config.stage} alarms`,
      masterKey: this.keys.alarms,
      enforceSSL: true,
    });
    const alarmAction = new SnsAction(this.alarmTopic);

    const queues = new Map<string, QueuePair>();
    for (const definition of props.queues) {
      if (queues.has(definition.id)) throw new Error(`Queue "${definition.id}" is declared twice`);
      const name = pascal(definition.id);
      const dlq = new sqs.Queue(this, `${name}Dlq`, {
        queueName: dlqName(config.prefix, definition.id),
        retentionPeriod: Duration.days(definition.dlqRetentionDays),
        encryption: sqs.QueueEncryption.KMS,
        encryptionMasterKey: this.keys.queues,
        enforceSSL: true,
        removalPolicy: config.removalPolicy,
      });
      const queue = new sqs.Queue(this, `${name}Queue`, {
        queueName: queueName(config.prefix, definition.id),
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        retentionPeriod: Duration.days(definition.retentionDays),
        encryption: sqs.QueueEncryption.KMS,
        encryptionMasterKey: this.keys.queues,
        enforceSSL: true,
        deadLetterQueue: { queue: dlq, maxReceiveCount: definition.maxReceiveCount },
        removalPolicy: config.removalPolicy,
      });
      new cloudwatch.Alarm(this, `${name}DlqNotEmpty`, {
        alarmName: `${dlqName(config.prefix, definition.id)}-not-empty`,
        alarmDescription: `Messages in the ${definition.id} dead-letter queue: ${definition.description}`,
        metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(alarmAction);
      queues.set(definition.id, { definition, queue, dlq });
    }
    this.queues = queues;
  }
}
