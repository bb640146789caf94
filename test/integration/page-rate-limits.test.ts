/**
 * Issue 31: the hosted page's own GET routes (the page, the status it polls, the PIX QR image) write no
 * rate-limit window; the page's POST /api/v1/checkout/process and the merchant's routes still do.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
import { payments } from '../support/payments';
import { startTestStack, type TestStack } from '../support/test-stack';

jest.setTimeout(60_000);
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

/** The rate-limit windows stored for a subject (merchant, session or payment), by route. */
async function windowsOf(subject: string): Promise<string[]> {
  const out: string[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const r = await documentClient().send(
      new ScanCommand({
        TableName: config.tableName,
        FilterExpression: 'begins_with(PK, :pk)',
        ExpressionAttributeValues: { ':pk': `RATELIMIT#${subject}#` },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    out.push(...(r.Items ?? []).map((i) => String(i.PK).slice(`RATELIMIT#${subject}#`.length)));
    ExclusiveStartKey = r.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return [...new Set(out)].sort();
}

it('page, status polls and QR image write no rate-limit item; process and the merchant routes do', async () => {
  const m = await stack.createMerchant();
  const api = payments(stack, m);
  const session = await api.createSession();
  expect(session.status).toBe(200);
  const sessionId = session.body.session_id as string;

  const page = await stack.request(`/checkout/${sessionId}`);
  expect(page.status).toBe(200);
  expect(page.headers.get('x-ratelimit-limit')).toBeNull();
  const processed = await api.process(sessionId, 'pix');
  expect(processed.status).toBe(200);
  expect(processed.headers.get('x-ratelimit-limit')).toBe('30');
  const paymentId = processed.body.payment_id as string;
  const qr = await stack.request(new URL(processed.body.pix_qr_code as string).pathname);
  expect(qr.status).toBe(200);
  expect(qr.headers.get('content-type')).toMatch(/^image\/png/);
  for (let i = 0; i < 3; i++) {
    const status = await stack.request(`/checkout/${sessionId}/status`);
    expect(status.status).toBe(200);
    expect(status.headers.get('x-ratelimit-limit')).toBeNull();
  }
  expect((await api.getSession(sessionId)).status).toBe(200);

  expect(await windowsOf(sessionId)).toEqual(['processCheckoutPayment']);
  expect(await windowsOf(paymentId)).toEqual([]);
  expect(await windowsOf(m.merchantId)).toEqual(['createCheckoutSession', 'getCheckoutSession']);
});
