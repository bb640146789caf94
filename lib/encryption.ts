/**
 * The stage's customer-managed KMS keys: the table's (money and every object), the live providers'
 * credentials, and one operations key for what carries no secret (the queues with their DLQs, whose messages
 * hold ids; the alarm topic; the CloudWatch log groups, whose lines are redacted), whose policy lets CloudWatch
 * Logs (for this account's log groups) and CloudWatch alarms (to publish to the topic) use it. Three keys, not
 * five: a key is a dollar a month per stage, and the separation that matters is around money and credentials
 * (issue 22). Both stages use them: sandbox exercises the same key policies live depends on. Yearly rotation; the keys follow the
 * stage's removal policy (retained in live), and a deleted sandbox key can be recovered for
 * `kmsPendingWindowDays`. The functions get the key actions through the grants on the table and queues
 * (lib/service-function.ts); the account root keeps the default key policy, so IAM decides who else may.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import type { StageConfig } from './stage-config';

/** A customer-managed key of the stage: `alias/<prefix>/<name>`, yearly rotation, the stage's removal policy. */
export function stageKey(scope: Construct, id: string, config: StageConfig, name: string, description: string): kms.Key {
  return new kms.Key(scope, id, {
    alias: `alias/${config.prefix}/${name}`,
    description: `LatamPayments ${config.stage}: ${description}`,
    enableKeyRotation: true,
    pendingWindow: Duration.days(config.kmsPendingWindowDays),
    removalPolicy: config.removalPolicy,
  });
}

/**
 * Lets CloudWatch Logs of the key's region encrypt and decrypt log events with it, for log groups of this
 * account and region only (the encryption context CloudWatch Logs sends names the log group).
 */
export function allowCloudWatchLogs(key: kms.Key): void {
  const { account, partition, region } = Stack.of(key);
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'CloudWatchLogsUseForLogGroupsOfThisAccount',
      principals: [new iam.ServicePrincipal(`logs.${region}.amazonaws.com`)],
      actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
      resources: ['*'],
      conditions: { ArnLike: { 'kms:EncryptionContext:aws:logs:arn': `arn:${partition}:logs:${region}:${account}:log-group:*` } },
    }),
  );
}

export class StageKeys extends Construct {
  /** The DynamoDB table (and its indexes, backups and point-in-time recovery). */
  readonly table: kms.Key;
  /** The operations key: every SQS queue and its DLQ, the alarm topic, and the log groups (the three below). */
  readonly operations: kms.Key;
  /** Every SQS queue and its dead-letter queue (the operations key). */
  readonly queues: kms.Key;
  /** The alarm topic; CloudWatch alarms may use it to publish (the operations key). */
  readonly alarms: kms.Key;
  /** CloudWatch log groups of this account and region; CloudWatch Logs may use it for them (the operations key). */
  readonly logs: kms.Key;
  /** The live providers' credentials (the Secrets Manager secret the provider-calling functions read). */
  readonly providers: kms.Key;

  constructor(scope: Construct, id: string, props: { readonly config: StageConfig }) {
    super(scope, id);
    const { config } = props;
    const key = (name: string, description: string) =>
      stageKey(this, `${name[0]!.toUpperCase()}${name.slice(1)}Key`, config, name, description);
    this.table = key('table', 'DynamoDB table');
    this.operations = key('operations', 'SQS queues and dead-letter queues, the alarm SNS topic, CloudWatch log groups');
    this.queues = this.operations;
    this.alarms = this.operations;
    this.logs = this.operations;
    this.providers = key('providers', 'live provider credentials (Secrets Manager)');

    allowCloudWatchLogs(this.logs);
    // An alarm action publishing to an encrypted topic fails silently unless CloudWatch may use its key.
    this.alarms.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublishToTopic',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
  }
}
