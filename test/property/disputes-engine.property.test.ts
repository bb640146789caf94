/**
 * Disputes on DynamoDB Local through the whole service (test/property/disputes-engine.ts): random sequences of Adyen's
 * dispute notices for live card payments, repeated, resent, batched, out of order and some at once, with the
 * merchant's accept among them; after each, ledger = balance, one case item per disputed payment, the case's status
 * agreeing with the money, one dispute.created per case and each stage's money moved once.
 * DynamoDB Local serializes transactions: what meets here is conditions (the payment's stage, the case's revision),
 * retried by commitDisputeStep. disputes-engine-conflicts.property.test.ts adds DynamoDB's TransactionConflict.
 *
 * Then, pinned: the interleaving the property found (an accept answered 500 when a notice committed while Adyen was
 * taking it), for accept and for submit; and a restaging whose write meets a submission committed after its read.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { acceptDispute, stageEvidence, submitDispute, type DisputeDeps } from '../../shared/application/disputes';
import { AppError } from '../../shared/domain/errors';
import type { CardDisputeConnector } from '../../shared/application/providers';
import { disputeIdOf } from '../../shared/domain/disputes/dispute-case';
import { disputeDeps, paymentDeps } from '../../shared/wiring';
import { expectLedgerEqualsBalance } from '../support/live-stage';
import { ledger } from '../support/payments';
import { liveMerchant, paidCard, runArbitrary, runDisputeSequence, SEEDED, startEngineRig, type EngineRig } from './disputes-engine';

// npm test: the seeded sequence (the random ones: npm run proof, 30; 60 for a longer hunt). The rules alone: dispute-case.test.
const NUM_RUNS = Number(process.env.PROPERTY_DISPUTES_RUNS ?? 1);

let rig: EngineRig;
beforeAll(async () => {
  rig = await startEngineRig();
});
afterAll(() => rig?.stop());

it(
  `holds for ${NUM_RUNS} random sequences of dispute notices and accepts of 2 or 3 live card payments (a seeded one first)`,
  async () => {
    const started = Date.now();
    // Real I/O and concurrent steps: a failing case is reported as found (seed and path to replay it), not shrunk.
    await fc.assert(
      fc.asyncProperty(runArbitrary(12), (input) => runDisputeSequence(rig, input)),
      { numRuns: NUM_RUNS, endOnFailure: true, examples: [[SEEDED]] },
    );
    expect(rig.figures.runs).toBe(NUM_RUNS); // the seeded one is the first of them
    expect(rig.figures.concurrentGroups).toBeGreaterThan(0);
    if (process.env.PROPERTY_VERBOSE) console.log(JSON.stringify({ ...rig.figures, ms: Date.now() - started }));
  },
  Math.max(120_000, NUM_RUNS * 10_000),
);

describe('interleavings pinned: a notice while Adyen takes the merchant’s answer; a submission under a restaging', () => {
  /** The wired dispute dependencies, with Adyen's dispute connector running `meanwhile` once `op` was taken at Adyen. */
  async function racing(op: 'accept' | 'defend', meanwhile: () => Promise<void>): Promise<DisputeDeps> {
    const deps = disputeDeps();
    const live = (await deps.connectors.forMode(true))!;
    const real = live.cardDisputes!;
    const cardDisputes: CardDisputeConnector = {
      ...real,
      [op]: async (ref: string, reason: string) => {
        await real[op](ref, reason);
        await meanwhile();
      },
    };
    return {
      ...deps,
      connectors: { ...deps.connectors, forMode: async (l) => (l ? { ...live, cardDisputes } : deps.connectors.forMode(l)) },
    };
  }

  async function opened(amount: number) {
    const m = await liveMerchant(rig);
    const { id, psp } = await paidCard(rig, m.call, amount);
    const d = rig.adyen.openDispute({ paymentPspReference: psp, reasonCode: '10.4' });
    const notify = async (code: string) =>
      expect(await rig.adyen.notify([rig.adyen.disputeItem(d.pspReference, code)])).toEqual({ status: 200, body: '[accepted]' });
    const caseEvents = async () =>
      ((await m.call('GET', `/api/v1/events?object_id=${disputeIdOf(id)}`)).body.data as Array<{ type: string }>)
        .map((e) => e.type)
        .reverse();
    const moved = async () =>
      (await ledger(m, 'BRL', 'live')).filter((e) => e.object_id === id && e.reason !== 'payment').map((e) => Number(e.amount_minor));
    return { ...m, id, d, notify, caseEvents, moved };
  }

  it('accept: Adyen accepted, and a CHARGEBACK (Accepted: lost) commits before the accept is recorded: 200, accepted', async () => {
    const x = await opened(80);
    await x.notify('NOTIFICATION_OF_CHARGEBACK');
    const deps = await racing('accept', () => x.notify('CHARGEBACK'));
    const after = await acceptDispute(deps, x.principal, disputeIdOf(x.id));
    expect(after).toMatchObject({ status: 'accepted', accepted_at: expect.any(String), last_action: { action: 'accept', state: 'done' } });
    expect((await paymentDeps().store.getPayment(x.id))?.dispute).toMatchObject({ status: 'lost', stage: 1 });
    expect(await x.moved()).toEqual([-8000]);
    expect(await x.caseEvents()).toEqual(['dispute.created', 'dispute.lost', 'dispute.updated']);
    await expectLedgerEqualsBalance(rig.stack, x, 'BRL');
  });

  it('submit: the defense taken, and a CHARGEBACK_REVERSED commits before it is recorded: 200, won stays won', async () => {
    const x = await opened(60);
    await x.notify('CHARGEBACK');
    const pdf = Buffer.from('%PDF-1.4\nproof of delivery\n%%EOF').toString('base64');
    const staged = await x.call(
      'POST',
      `/api/v1/disputes/${disputeIdOf(x.id)}/evidence`,
      { defense_reason: 'SupplyDefenseMaterial', documents: [{ type: 'DefenseMaterial', mime: 'application/pdf', content_base64: pdf }] },
      { 'x-idempotency-key': randomUUID() },
    );
    expect(staged.status).toBe(200);
    const deps = await racing('defend', () => x.notify('CHARGEBACK_REVERSED'));
    const after = await submitDispute(deps, x.principal, disputeIdOf(x.id));
    expect(after).toMatchObject({
      status: 'won',
      submitted_at: expect.any(String),
      last_action: { action: 'submit', state: 'done', defended: true },
    });
    expect(rig.adyen.dispute(x.d.pspReference)).toMatchObject({ defendedWith: 'SupplyDefenseMaterial', closed: 'won' });
    expect(await x.moved()).toEqual([-6000, 6000]);
    expect(await x.caseEvents()).toEqual(['dispute.created', 'dispute.won', 'dispute.updated']);
    await expectLedgerEqualsBalance(rig.stack, x, 'BRL');
  });

  it('a staging overtaken by a submission committed meanwhile: refused, its bytes deleted; the submission sends its own', async () => {
    const x = await opened(70);
    await x.notify('CHARGEBACK');
    const disputeId = disputeIdOf(x.id);
    const pdf = (text: string) => Buffer.from(`%PDF-1.4\n${text}\n%%EOF`).toString('base64');
    const evidence = (text: string) => ({
      defense_reason: 'SupplyDefenseMaterial',
      documents: [{ type: 'DefenseMaterial', mime: 'application/pdf' as const, content_base64: pdf(text) }],
    });
    const first = await x.call('POST', `/api/v1/disputes/${disputeId}/evidence`, evidence('the first'), {
      'x-idempotency-key': randomUUID(),
    });
    expect(first.status).toBe(200);
    // The restaging's write meets a submission of the first staging committed after the restaging read the case.
    const deps = disputeDeps();
    const firstStaging = (await deps.disputes.get(disputeId))!.evidence!.staging_id;
    let putStaging = '';
    const disputes = {
      ...deps.disputes,
      putDocuments: (id: string, stagingId: string, contents: readonly string[], now: string) => {
        putStaging = stagingId;
        return deps.disputes.putDocuments(id, stagingId, contents, now);
      },
      save: async (op: Parameters<DisputeDeps['disputes']['save']>[0]) => {
        const read = (await deps.disputes.get(disputeId))!;
        if (read.last_action === null || read.last_action === undefined) {
          const at = new Date().toISOString();
          const intent = { action: 'submit' as const, state: 'pending' as const, at, staging_id: read.evidence!.staging_id };
          await deps.disputes.save({
            next: { ...read, last_action: { ...intent, supplied: [], removing: [], defended: false }, revision: read.revision + 1 },
            readRevision: read.revision,
            events: [],
            now: at,
          });
        }
        return deps.disputes.save(op);
      },
    };
    const refused = await stageEvidence({ ...deps, disputes }, x.principal, disputeId, evidence('the second')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'DISPUTE_NOT_OPEN' });
    expect(await deps.disputes.readDocument(disputeId, putStaging, 0)).toBeNull();
    const after = (await deps.disputes.get(disputeId))!;
    expect(after.evidence?.staging_id).toBe(firstStaging);
    // The submission, sent again, finishes with the staging it committed: Adyen holds the first document.
    const done = await x.call('POST', `/api/v1/disputes/${disputeId}/submit`, {}, { 'x-idempotency-key': randomUUID() });
    expect(done.body).toMatchObject({ status: 'under_review', submitted_at: expect.any(String), last_error: null });
    expect(rig.adyen.dispute(x.d.pspReference)?.documents.get('DefenseMaterial')?.content).toBe(pdf('the first'));
  });
});
