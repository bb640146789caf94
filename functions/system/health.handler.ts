/** GET /health: answers without a key; 503 when DynamoDB is unreachable. */
import { checkHealth } from '../../shared/application/health';
import { tableProbe } from '../../shared/adapters/dynamodb/health.probe';
import { httpHandler } from '../../shared/http/handler';

export const handler = httpHandler({
  route: 'health',
  handler: async () => {
    const report = await checkHealth(tableProbe);
    return { status: report.status === 'ok' ? 200 : 503, body: report };
  },
});
