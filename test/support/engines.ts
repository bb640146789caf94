/**
 * Endpoints of the engines globalSetup started (inherited through the environment by every worker): the DynamoDB
 * Local of this jest worker (one per worker, by JEST_WORKER_ID) and the shared fauxqs.
 */
export function engines(): { dynamodb: string; sqs: string } {
  const dynamodbs = (process.env.TEST_DYNAMODB_ENDPOINTS ?? '').split(',').filter(Boolean);
  const sqs = process.env.TEST_SQS_ENDPOINT;
  if (dynamodbs.length === 0 || !sqs) throw new Error('Engines not started: run the tests through jest (globalSetup).');
  const worker = Math.max(1, Number(process.env.JEST_WORKER_ID ?? '1'));
  return { dynamodb: dynamodbs[(worker - 1) % dynamodbs.length]!, sqs };
}
