/** GET /health: answers without a key; 503 when DynamoDB is unreachable. */
import { checkHealth } from '../../shared/application/health';
import { httpHandler } from '../../shared/http/handler';
import { healthProbes } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'health',
  handler: async () => {
    const report = await checkHealth(...healthProbes);
    return { status: report.status === 'ok' ? 200 : 503, body: report };
  },
});
