/** Builds the events and contexts Lambda would pass: API Gateway HTTP API v2, SQS, EventBridge schedule. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2, Context, ScheduledEvent, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Message } from '@aws-sdk/client-sqs';

/**
 * A function's timeout as the local stack enforces it: the deployed one, times LOCAL_TIMEOUT_SCALE when set. The jest
 * run sets it (test/support/env.ts): three workers, two JVMs and the linters on two cores make a handler take up to
 * five times what it takes alone, and a deadline is wall-clock time, so a function on a starved machine would
 * otherwise be cut off (middy's early timeout) where Lambda, with its own CPU, would finish. `npm start` and the
 * proofs keep the deployed timeouts; test/infra checks what is deployed.
 */
export function localTimeoutMs(timeoutSeconds: number): number {
  const scale = Number(process.env.LOCAL_TIMEOUT_SCALE ?? '1');
  return timeoutSeconds * 1000 * (Number.isFinite(scale) && scale >= 1 ? scale : 1);
}

export function lambdaContext(functionName: string, timeoutSeconds: number): Context {
  const deadline = Date.now() + localTimeoutMs(timeoutSeconds);
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** An HTTP API payload v2 event for a request, as API Gateway builds it. */
export function httpApiEvent(
  req: IncomingMessage,
  body: Buffer,
  route: { routeKey: string; pathParameters?: Record<string, string> },
): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (name === 'cookie') cookies.push(...String(value).split(/;\s*/));
    else headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const contentType = headers['content-type'] ?? '';
  const isText = body.length === 0 || /json|text|xml|x-www-form-urlencoded|javascript/i.test(contentType) || !contentType;
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: cookies.length ? cookies : undefined,
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: route.pathParameters && Object.keys(route.pathParameters).length ? route.pathParameters : undefined,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: (req.method ?? 'GET').toUpperCase(),
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: route.routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body: body.length ? (isText ? body.toString('utf8') : body.toString('base64')) : undefined,
    isBase64Encoded: body.length > 0 && !isText,
  };
}

export function sqsEvent(queueArn: string, messages: Message[]): SQSEvent {
  const Records: SQSRecord[] = messages.map((m) => ({
    messageId: m.MessageId ?? randomUUID(),
    receiptHandle: m.ReceiptHandle ?? '',
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
      SentTimestamp: m.Attributes?.SentTimestamp ?? String(Date.now()),
      SenderId: m.Attributes?.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: m.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [
        k,
        { dataType: v.DataType ?? 'String', stringValue: v.StringValue, stringListValues: [], binaryListValues: [] },
      ]),
    ),
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  }));
  return { Records };
}

export function scheduledEvent(jobId: string): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region: 'us-east-1',
    resources: [`arn:aws:events:us-east-1:000000000000:rule/${jobId}`],
    detail: {},
  };
}
