/** AWS SDK clients, created once per container. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config';

let ddb: DynamoDBClient | undefined;
let doc: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * Every DynamoDB and SQS call is bounded: the SDK sets no timeout of its own, so a call on a connection that
 * stopped answering would hold the function until its own timeout (a 5xx for a request, a whole batch lost for a
 * worker). 2 s to connect and 5 s for an answer (DynamoDB's own are milliseconds), then the SDK's standard retries
 * (3 attempts, the same ClientRequestToken for a transaction, so a retried commit is not a second one).
 */
export const SDK_TIMEOUTS = { connectionTimeout: 2_000, requestTimeout: 5_000 } as const;

export function dynamoClient(): DynamoDBClient {
  if (!ddb) {
    const endpoint = config.dynamoEndpoint;
    ddb = new DynamoDBClient({
      region: config.region,
      requestHandler: SDK_TIMEOUTS,
      ...(endpoint ? { endpoint, credentials: localCredentials } : {}),
    });
  }
  return ddb;
}

export function documentClient(): DynamoDBDocumentClient {
  if (!doc) {
    doc = DynamoDBDocumentClient.from(dynamoClient(), {
      marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
    });
  }
  return doc;
}

export function sqsClient(): SQSClient {
  if (!sqs) {
    const endpoint = config.sqsEndpoint;
    sqs = new SQSClient({
      region: config.region,
      requestHandler: SDK_TIMEOUTS,
      ...(endpoint ? { endpoint, credentials: localCredentials } : {}),
    });
  }
  return sqs;
}
