/** Endpoints of the engines globalSetup started (inherited through the environment by every worker). */
export function engines(): { dynamodb: string; sqs: string } {
  const dynamodb = process.env.TEST_DYNAMODB_ENDPOINT;
  const sqs = process.env.TEST_SQS_ENDPOINT;
  if (!dynamodb || !sqs) throw new Error('Engines not started: run the tests through jest (globalSetup).');
  return { dynamodb, sqs };
}
