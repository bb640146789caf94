/**
 * dispute.evidence_due_soon (DESIGN.md 9.4) on the local engines: the job warns each test dispute still unanswered
 * 48 hours before its deadline, once, signed like every event; a case answered meanwhile, or whose deadline passed
 * before any run saw it, is never warned and leaves the work index.
 */
import { disputeDeps } from '../../shared/wiring';
import { handler as readPixDisputes } from '../../functions/jobs/read-pix-disputes.handler';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { card, payments } from '../support/payments';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';

jest.setTimeout(60_000);

let stack: TestStack;
let receiver: Receiver;

beforeAll(async () => {
  Object.assign(process.env, { PAYOUT_SETTLEMENT_DELAY_SECONDS: '0', WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE: '0,1' });
  stack = await startTestStack({ workers: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.stop();
  await stack.stop();
});

const HOUR = 3_600_000;
const runJob = (at: Date) =>
  readPixDisputes({ time: at.toISOString() } as Partial<ScheduledEvent> as ScheduledEvent, {} as Context) as Promise<
    Record<string, number>
  >;

async function disputed(m: TestMerchant) {
  const api = payments(stack, m);
  const paid = await api.direct({ payment_method: 'card', card: card('4242424242424242'), amount: 80 });
  expect(paid.status).toBe(200);
  const r = await api.json('POST', `/api/v1/sandbox/payments/${paid.body.payment_id}/dispute`, {});
  expect([r.status, r.body.status]).toEqual([200, 'needs_response']);
  return r.body as { dispute_id: string; evidence_due_by: string };
}

it('warns once 48 hours before the deadline, signed; not before, not twice', async () => {
  const m = await stack.createMerchant({ notification_url: receiver.url });
  const d = await disputed(m);
  const due = Date.parse(d.evidence_due_by);
  // 49 hours before: not yet on the work index's due range.
  expect(await runJob(new Date(due - 49 * HOUR))).toMatchObject({ warned: 0, cleared: 0 });
  const first = await runJob(new Date(due - 47 * HOUR));
  expect(first.warned).toBeGreaterThanOrEqual(1);
  const got = await receiver.waitFor(1, 10_000, (w) => w.body.event === 'dispute.evidence_due_soon' && w.body.dispute_id === d.dispute_id);
  expect(got[0]!.body).toMatchObject({ status: 'needs_response', evidence_due_by: d.evidence_due_by, amount: 80, livemode: false });
  const again = await runJob(new Date(due - 46 * HOUR));
  expect(again.warned).toBe(0);
  expect((await disputeDeps().disputes.get(d.dispute_id))?.evidence_due_soon_sent).toBe(true);
  const events = await payments(stack, m).json('GET', `/api/v1/events?object_id=${d.dispute_id}`);
  expect(events.body.data.map((e: { type: string }) => e.type).sort()).toEqual(['dispute.created', 'dispute.evidence_due_soon']);
});

it('an accepted case is never warned; one first seen after its deadline leaves the index unwarned', async () => {
  const m = await stack.createMerchant({ notification_url: receiver.url });
  const accepted = await disputed(m);
  expect((await payments(stack, m).json('POST', `/api/v1/disputes/${accepted.dispute_id}/accept`)).status).toBe(200);
  const late = await disputed(m);
  const r = await runJob(new Date(Date.parse(late.evidence_due_by) + HOUR));
  expect(r.warned).toBe(0);
  expect((await disputeDeps().disputes.get(late.dispute_id))?.evidence_due_soon_sent).toBe(true);
  expect((await disputeDeps().disputes.get(accepted.dispute_id))?.evidence_due_soon_sent).toBe(false);
  expect(
    await disputeDeps().disputes.dueForWarning(new Date(Date.parse(late.evidence_due_by) + 2 * HOUR).toISOString(), 100),
  ).not.toContain(late.dispute_id);
  await new Promise((res) => setTimeout(res, 300));
  expect(
    receiver.received.filter(
      (w) =>
        w.body.event === 'dispute.evidence_due_soon' &&
        w.body.dispute_id !== undefined &&
        [accepted.dispute_id, late.dispute_id].includes(w.body.dispute_id),
    ),
  ).toEqual([]);
});
