/**
 * The same burst as contention.test.ts with every write held 150 ms by the conflict proxy: 40 debits of one balance
 * cannot all take their turn within a request's budget, so some requests are answered 503 BUSY_RETRY_SAME_KEY
 * (asserted), each with Retry-After; retried with the same key, each is done exactly once (issue 34).
 */
import { contentionSuite } from '../support/contention-burst';

jest.setTimeout(240_000);

describe('64 concurrent requests of one merchant, conflict proxy holding each write 150 ms', () => {
  contentionSuite({ latencyMs: 150, forced: true });
});
