/**
 * The idempotency engine of the routes the manifest marks `idempotent`: our records over the single table
 * (shared/adapters/dynamodb/idempotency.store.ts). Only those handlers import it (httpHandler's `idempotency`
 * option).
 */
import { idempotencyStore } from '../wiring';
import { makeIdempotentRunner } from './middleware/idempotency';
import type { HttpResult } from './types';

export const idempotent = makeIdempotentRunner<HttpResult>(idempotencyStore);
