/** AWS SDK clients, created once per container. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config';

let ddb: DynamoDBClient | undefined;
let doc: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export function dynamoClient(): DynamoDBClient {
  if (!ddb) {
    const endpoint = config.dynamoEndpoint;
    ddb = new DynamoDBClient({ region: config.region, ...(endpoint ? { endpoint, credentials: localCredentials } : {}) });
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
    sqs = new SQSClient({ region: config.region, ...(endpoint ? { endpoint, credentials: localCredentials } : {}) });
  }
  return sqs;
}
