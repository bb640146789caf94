/**
 * One merchant, 64 concurrent requests heavy in payouts and refunds, under DynamoDB's conflict rules at about
 * DynamoDB's own pace (the proxy holds each write 12 ms): no 500, any 503 is BUSY_RETRY_SAME_KEY with Retry-After
 * and its retry with the same key is done once; ledger = balance (test/support/contention-burst.ts, issue 34).
 */
import { contentionSuite } from '../support/contention-burst';

jest.setTimeout(240_000);

describe('64 concurrent requests of one merchant, conflict proxy holding each write 12 ms', () => {
  contentionSuite({ latencyMs: 12, forced: false });
});
