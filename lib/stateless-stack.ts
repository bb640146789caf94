/**
 * Everything that can be replaced without losing data: the HTTP API with one
 * Lambda per manifest route (+ the $default fallback), the queue consumers, the
 * scheduled jobs, and their alarms. Built entirely from the manifests. The workers,
 * the provider callbacks' functions and the mandate and dispute routes' functions sit in
 * three nested stacks (`workers`, `providerCallbacks`, `mandatesAndDisputes`) so the
 * stack stays under CloudFormation's resource limit.
 */
import { CfnOutput, CrossStackReferences, Duration, NestedStack, ReferenceStrength, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import type { RouteDefinition } from '../shared/manifest/routes';
import { pascal, type ServiceManifest } from './manifest';
import { ServiceFunction } from './service-function';
import type { StageConfig } from './stage-config';
import type { QueuePair } from './stateful-stack';

export interface StatelessStackProps extends StackProps {
  readonly config: StageConfig;
  readonly manifest: ServiceManifest;
  readonly table: dynamodb.ITable;
  readonly queues: ReadonlyMap<string, QueuePair>;
  readonly alarmTopic: sns.ITopic;
  /** Origin the functions write into links (checkout_url, QR images, redirects); default: the HTTP API's endpoint. */
  readonly publicBaseUrl?: string;
  /** Encrypts every log group of the stack (StageKeys.logs in the stateful stack). */
  readonly logsKey: kms.IKey;
  /** The live providers document (lib/providers-secret.ts). */
  readonly providersSecret: secretsmanager.ISecret;
}

/** Why a route has no API Gateway authorizer (AwsSolutions-APIG4): the function authorises it, by kind. */
const NO_AUTHORIZER: Record<RouteDefinition['auth'] | 'fallback', string> = {
  api_key: 'Authorised in the function: API key looked up by SHA-256 hash, with its scope and mode (authentication middleware)',
  session: 'Authorised in the function by the unguessable checkout session id in the body (the hosted page calls it)',
  none: 'Public by design: health, OpenAPI/docs, and the shopper-facing pages reached by unguessable cs_/pi_ ids',
  fallback: 'The $default route answers 404/405 only; its function has no table or queue access',
};

/** Routes whose functions live in the ProviderCallbacks nested stack: the providers' callbacks and returns. */
export const isProviderCallback = (route: RouteDefinition) => route.path.startsWith('/providers/');

/** The mandate and dispute routes (DESIGN.md 9.3, 9.4): their functions in a nested stack of their own. */
export const isMandateOrDisputeRoute = (route: RouteDefinition) =>
  /^\/api\/v1\/(sandbox\/)?(mandates|disputes)(\/|$)/.test(route.path) ||
  route.path.startsWith('/mandates/') ||
  route.path.endsWith('/dispute');

/** The Lambda is always given this long beyond its timeout before SQS redelivers. */
function checkVisibility(queue: QueuePair, timeoutSeconds: number) {
  if (queue.definition.visibilityTimeoutSeconds < timeoutSeconds) {
    throw new Error(
      `Queue "${queue.definition.id}": visibilityTimeoutSeconds (${queue.definition.visibilityTimeoutSeconds}) ` +
        `must be at least its consumer's timeoutSeconds (${timeoutSeconds})`,
    );
  }
}

export class StatelessStack extends Stack {
  readonly httpApi: apigwv2.HttpApi;
  /** Every function, keyed by route id, fallback id, `<queueId>Consumer` or `<jobId>Job`. */
  readonly functions: ReadonlyMap<string, nodejs.NodejsFunction>;
  /**
   * Nested stacks that keep this one well under CloudFormation's 500 resources per stack (issue 34; docs/operations.md
   * "Stacks and deploy limits"): each holds functions (with their roles, log groups, alarms, event sources and
   * schedules) whose names CloudFormation generates, so they can move between stacks in one deploy. The API's routes,
   * integrations and permissions, the named alarms and the dashboard stay here (a route key or an alarm name cannot
   * be created in one stack before another deletes it), and so do the table-stream consumers (a new mapping would
   * read the stream again from its trim horizon). This one: the queue consumers and the scheduled jobs.
   */
  readonly workers: NestedStack;
  /** The functions of the provider callback routes (`/providers/...`). */
  readonly providerCallbacks: NestedStack;
  /** The functions of the mandate and dispute routes (their routes and integrations stay here). */
  readonly mandatesAndDisputes: NestedStack;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    // Export/ImportValue: the stateful stack cannot drop the table or a queue while this stack uses it.
    CrossStackReferences.of(this).consume(ReferenceStrength.STRONG);
    const { config, manifest } = props;
    const functions = new Map<string, nodejs.NodejsFunction>();
    const common = {
      config,
      table: props.table,
      queues: props.queues,
      alarmTopic: props.alarmTopic,
      logsKey: props.logsKey,
      providersSecret: props.providersSecret,
    };
    this.workers = new NestedStack(this, 'Workers', {
      description: `LatamPayments ${config.stage}: queue consumers and scheduled jobs (nested in the stateless stack)`,
    });
    this.providerCallbacks = new NestedStack(this, 'ProviderCallbacks', {
      description: `LatamPayments ${config.stage}: provider callback functions (nested in the stateless stack)`,
    });
    this.mandatesAndDisputes = new NestedStack(this, 'MandatesDisputes', {
      description: `LatamPayments ${config.stage}: mandate and dispute route functions (nested in the stateless stack)`,
    });
    const routeScope = (route: RouteDefinition) =>
      isProviderCallback(route) ? this.providerCallbacks : isMandateOrDisputeRoute(route) ? this.mandatesAndDisputes : this;
    const add = (key: string, fn: ServiceFunction) => {
      if (functions.has(key)) throw new Error(`Two functions named "${key}" in the manifest`);
      functions.set(key, fn.fn);
      return fn.fn;
    };

    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', {
      retention: config.logRetention,
      encryptionKey: props.logsKey,
      removalPolicy: config.removalPolicy,
    });
    this.httpApi = new apigwv2.HttpApi(this, 'HttpApi', {
      apiName: `${config.prefix}-api`,
      description: `LatamPayments payments API (${config.stage})`,
      createDefaultStage: false,
    });
    this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: config.apiThrottle,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTimeEpoch',
            method: '$context.httpMethod',
            path: '$context.path',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });
    // Handlers build absolute links (checkout_url, QR images, redirects) from it: the edge's domain when there is one.
    const environment = { PUBLIC_BASE_URL: props.publicBaseUrl ?? this.httpApi.apiEndpoint };

    for (const route of manifest.routes) {
      const fn = add(
        route.id,
        new ServiceFunction(routeScope(route), `Route${pascal(route.id)}`, {
          ...common,
          functionAlarms: false,
          handlerFile: route.handler,
          description: `${route.method} ${route.path}: ${route.summary}`,
          access: route.access,
          memoryMb: route.memoryMb,
          timeoutSeconds: route.timeoutSeconds,
          assets: route.assets,
          environment,
        }),
      );
      const httpRoute = new apigwv2.HttpRoute(this, `HttpRoute${pascal(route.id)}`, {
        httpApi: this.httpApi,
        routeKey: apigwv2.HttpRouteKey.with(route.path, apigwv2.HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`Integration${pascal(route.id)}`, fn),
      });
      NagSuppressions.addResourceSuppressions(httpRoute, [{ id: 'AwsSolutions-APIG4', reason: NO_AUTHORIZER[route.auth] }]);
    }

    const fallback = add(
      manifest.fallback.id,
      new ServiceFunction(this, `Route${pascal(manifest.fallback.id)}`, {
        ...common,
        functionAlarms: false,
        handlerFile: manifest.fallback.handler,
        description: 'API $default route: 404/405 for requests no route matches.',
        access: manifest.fallback.access,
        environment,
      }),
    );
    // The API's $default route (what HttpApiProps.defaultIntegration creates; built
    // here because the functions read the API's endpoint).
    const defaultRoute = new apigwv2.HttpRoute(this, 'HttpRouteDefault', {
      httpApi: this.httpApi,
      routeKey: apigwv2.HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration('IntegrationDefault', fallback),
    });
    NagSuppressions.addResourceSuppressions(defaultRoute, [{ id: 'AwsSolutions-APIG4', reason: NO_AUTHORIZER.fallback }]);

    for (const definition of manifest.queues) {
      const consumer = definition.consumer;
      if (!consumer) continue;
      const queue = props.queues.get(definition.id);
      if (!queue) throw new Error(`Queue "${definition.id}" has a consumer but no queue in the stateful stack`);
      checkVisibility(queue, consumer.timeoutSeconds);
      const concurrency = config.concurrency.consumers[definition.id];
      const fn = add(
        `${definition.id}Consumer`,
        new ServiceFunction(this.workers, `Consumer${pascal(definition.id)}`, {
          ...common,
          handlerFile: consumer.handler,
          description: `Consumer of the ${definition.id} queue: ${definition.description}`,
          access: consumer.access,
          timeoutSeconds: consumer.timeoutSeconds,
          memoryMb: consumer.memoryMb,
          eventSourceQueueId: definition.id,
          reservedConcurrency: concurrency,
          environment,
        }),
      );
      fn.addEventSource(
        new SqsEventSource(queue.queue, {
          batchSize: consumer.batchSize,
          maxBatchingWindow: consumer.maxBatchingWindowSeconds > 0 ? Duration.seconds(consumer.maxBatchingWindowSeconds) : undefined,
          reportBatchItemFailures: true,
          // At most the reserved concurrency: the poller never invokes into a throttle (which would count receives).
          maxConcurrency: concurrency,
        }),
      );
    }

    for (const job of manifest.jobs) {
      const fn = add(
        `${job.id}Job`,
        new ServiceFunction(this.workers, `Job${pascal(job.id)}`, {
          ...common,
          handlerFile: job.handler,
          description: `Scheduled every ${job.everyMinutes} min: ${job.description}`,
          access: job.access,
          timeoutSeconds: job.timeoutSeconds,
          memoryMb: job.memoryMb,
          reservedConcurrency: config.concurrency.jobs,
          environment,
        }),
      );
      new events.Rule(this.workers, `Schedule${pascal(job.id)}`, {
        description: `${job.id}: every ${job.everyMinutes} minutes`,
        schedule: events.Schedule.rate(Duration.minutes(job.everyMinutes)),
        targets: [new targets.LambdaFunction(fn, { retryAttempts: 0 })],
      });
    }
    for (const consumer of manifest.streams) {
      const fn = add(
        `${consumer.id}Stream`,
        new ServiceFunction(this, `Stream${pascal(consumer.id)}`, {
          ...common,
          handlerFile: consumer.handler,
          description: `Consumer of the table's stream: ${consumer.description}`,
          readsTableStream: true,
          access: consumer.access,
          timeoutSeconds: consumer.timeoutSeconds,
          memoryMb: consumer.memoryMb,
          environment,
        }),
      );
      fn.addEventSource(
        new DynamoEventSource(props.table, {
          startingPosition: lambda.StartingPosition.TRIM_HORIZON,
          batchSize: consumer.batchSize,
          maxBatchingWindow: consumer.maxBatchingWindowSeconds > 0 ? Duration.seconds(consumer.maxBatchingWindowSeconds) : undefined,
          // null: the mapping's default, until the records leave the stream (24 h).
          ...(consumer.retryAttempts === null ? {} : { retryAttempts: consumer.retryAttempts }),
          reportBatchItemFailures: consumer.reportBatchItemFailures ?? false,
          // A consumer that reports its failed records retries from the first of them; others halve the batch.
          bisectBatchOnError: !consumer.reportBatchItemFailures,
          // Only the records the consumer reads invoke it: every other change to the table costs nothing.
          filters: [lambda.FilterCriteria.filter(consumer.filter)],
        }),
      );
    }
    this.functions = functions;

    new cloudwatch.Alarm(this, 'Api5xxAlarm', {
      alarmName: `${config.prefix}-api-5xx`,
      alarmDescription: 'HTTP API 5xx responses',
      metric: this.httpApi.metricServerError({ period: config.alarms.period }),
      threshold: config.alarms.api5xx,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: config.alarms.evaluationPeriods,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(new SnsAction(props.alarmTopic));

    new CfnOutput(this, 'ApiUrl', {
      value: this.httpApi.apiEndpoint,
      description: 'Base URL of the payments API',
    });
  }
}
