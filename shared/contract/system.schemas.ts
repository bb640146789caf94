/** Response schemas of the system routes. */
import { z } from 'zod';
import { timestamp } from '../http/views/wire.schemas';

/** GET /health. */
export const healthReport = z.object({
  status: z.enum(['ok', 'degraded']),
  time: timestamp,
  dependencies: z.record(z.string(), z.enum(['ok', 'unavailable'])).meta({ example: { dynamodb: 'ok' } }),
});
