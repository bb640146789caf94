/**
 * Routes that exist only for the pipeline tests (not in the manifest): an
 * idempotent create with a visible effect, a rate-limited GET, a handler that
 * fails, and one that logs a request carrying card data.
 */
import * as z from 'zod';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../../shared/adapters/aws-clients';
import { config } from '../../../shared/config';
import { httpHandler } from '../../../shared/http/handler';
import { idempotent } from '../../../shared/http/idempotent';
import type { RouteDefinition } from '../../../shared/manifest/routes';
import { logger } from '../../../shared/observability';
import type { ExtraRoute } from '../../../bin/local/http-server';

const route = (r: Partial<RouteDefinition> & Pick<RouteDefinition, 'id' | 'method' | 'path'>): RouteDefinition => ({
  handler: 'test/support/routes/pipeline-test-routes.ts',
  auth: 'api_key',
  rateLimitPerMinute: 1000,
  family: 'checkout',
  idempotent: false,
  access: { table: 'readwrite' },
  summary: 'test only',
  ...r,
});

const ROUTE = {
  create: route({ id: 'testCreateWidget', method: 'POST', path: '/test/widgets', idempotent: true }),
  limited: route({ id: 'testLimited', method: 'GET', path: '/test/limited', rateLimitPerMinute: 100 }),
  boom: route({ id: 'testBoom', method: 'GET', path: '/test/boom', family: 'direct' }),
  logCard: route({ id: 'testLogCard', method: 'POST', path: '/test/log-card' }),
};

export const widgetBody = z.object({
  name: z.string().min(1).max(50),
  amount: z.number().positive().max(1_000_000),
  kind: z.enum(['small', 'large']).optional(),
});

/** Each create writes the widget (conditional on its id being new) and bumps a per-merchant counter. */
const createWidget = httpHandler({
  route: ROUTE.create,
  idempotency: idempotent,
  body: widgetBody,
  handler: async ({ body, principal, newId }) => {
    const id = newId('wgt_');
    const db = documentClient();
    await new Promise((r) => setTimeout(r, 100)); // widen the race window for the concurrency tests
    await db.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { PK: `TESTWIDGET#${id}`, SK: 'WIDGET', entity: 'test_widget', version: 1, ...body, created_at: new Date().toISOString() },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: { PK: `TESTCOUNTER#${principal.merchant.merchant_id}`, SK: 'COUNTER' },
        UpdateExpression: 'ADD #n :one',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    return { body: { success: true, widget_id: id, name: body.name, created_at: new Date().toISOString(), nonce: Math.random() } };
  },
});

const limited = httpHandler({
  route: ROUTE.limited,
  handler: async () => ({ body: { success: true } }),
});

const boom = httpHandler({
  route: ROUTE.boom,
  handler: async () => {
    throw new Error('connection string postgres://admin:hunter2@db.internal failed');
  },
});

const logCard = httpHandler({
  route: ROUTE.logCard,
  body: z.object({ card: z.object({ number: z.string(), cvv: z.string() }), customer: z.object({ document: z.string() }) }),
  handler: async ({ body, event }) => {
    logger.info('received payment request', { body, event });
    logger.info(`card ${body.card.number} cvv ${body.card.cvv}`);
    return { body: { success: true } };
  },
});

const asLambda = (h: unknown) => h as (event: unknown, context: Context) => Promise<unknown>;
export const pipelineTestRoutes: ExtraRoute[] = [
  { route: ROUTE.create, handler: asLambda(createWidget) },
  { route: ROUTE.limited, handler: asLambda(limited) },
  { route: ROUTE.boom, handler: asLambda(boom) },
  { route: ROUTE.logCard, handler: asLambda(logCard) },
];
