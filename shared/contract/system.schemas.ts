/** Response schemas of the system routes. */
import * as z from 'zod';
import { timestamp } from '../http/views/wire.schemas';

/** GET /health. */
export const healthReport = z.object({
  status: z.enum(['ok', 'degraded']),
  time: timestamp,
  dependencies: z.record(z.string(), z.enum(['ok', 'unavailable'])).meta({ example: { dynamodb: 'ok' } }),
});

/** GET /openapi.json: an OpenAPI 3.1 document (validated in full by the contract tests). */
export const openApiDocument = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
  webhooks: z.record(z.string(), z.unknown()),
});

/** A provider callback, handled: how many items it carried. */
export const providerCallbackReceived = z.object({ received: z.number().int().min(0).meta({ example: 1 }) });

/** Binance Pay's notifications are answered as its webhook page asks: a return code, no message. */
export const binancePayAnswer = z.object({
  returnCode: z.literal('SUCCESS'),
  returnMessage: z.null(),
});

/** STP's callbacks are answered in STP's words: `recibido` (a state change), `confirmar` or `devolver` (a deposit). */
export const stpCallbackAnswer = z.object({
  mensaje: z.enum(['recibido', 'confirmar', 'devolver']).meta({ example: 'recibido' }),
  id: z.optional(z.number().int().meta({ description: 'With devolver: the return cause.', example: 1 })),
});
