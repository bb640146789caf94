/**
 * The idempotency engine of the routes the manifest marks `idempotent`: Powertools
 * idempotency over the single table. Only those handlers import it (httpHandler's
 * `idempotency` option), so the other routes do not bundle it or its JMESPath engine.
 */
import { idempotencyStore } from '../wiring';
import { makeIdempotentRunner } from './middleware/idempotency';
import type { HttpResult } from './types';

export const idempotent = makeIdempotentRunner<HttpResult>(idempotencyStore);
