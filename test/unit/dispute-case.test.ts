/** The merchant's dispute case (DESIGN.md 9.4) as pure rules: its status, events, reason words, warnings and required documents. */
import fc from 'fast-check';
import { missingDocuments } from '../../shared/application/disputes';
import {
  caseAfterNotice,
  caseStatusOf,
  disputeIdOf,
  evidenceDueSoon,
  reasonOf,
  type DisputeCase,
} from '../../shared/domain/disputes/dispute-case';
import { applyDisputeSignal, type Dispute, type DisputeSignal } from '../../shared/domain/payments/dispute';

const origin = {
  payment_id: 'pi_AAAAAAAAAAAAAAAAAAAAAA',
  merchant_id: 'm_1',
  livemode: true,
  currency: 'BRL' as const,
  notification_url: null,
  metadata: {},
  provider: 'adyen',
};
const at = (i: number) => new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString();
const notice = (i: number) => ({
  amountMinor: 5000,
  reasonCode: '10.4',
  providerReference: 'CB1',
  at: at(i),
  deadline: '2026-11-20T00:00:00.000Z',
});

describe('dispute case', () => {
  it('is one id per payment, whatever the notices', () => {
    expect(disputeIdOf('pi_AAAAAAAAAAAAAAAAAAAAAA')).toBe('dsp_AAAAAAAAAAAAAAAAAAAAAA');
  });

  it('announced, charged back, reversed: created, updated (funds withdrawn), won', () => {
    const s0 = applyDisputeSignal(null, 'notified', notice(0))!;
    expect(s0.movements).toEqual([]);
    const c0 = caseAfterNotice(null, s0.next, origin, at(0));
    expect(c0.events).toEqual(['dispute.created']);
    expect(c0.next).toMatchObject({
      status: 'needs_response',
      funds_withdrawn: false,
      reason: 'fraudulent',
      provider_reason_code: '10.4',
      evidence_due_by: '2026-11-20T00:00:00.000Z',
      revision: 1,
    });
    const s1 = applyDisputeSignal(s0.next, 'withdrawn', notice(1))!;
    expect(s1.movements).toEqual([{ amountMinor: -5000, reason: 'chargeback', stage: 1 }]);
    const c1 = caseAfterNotice(c0.next, s1.next, origin, at(1));
    expect(c1.events).toEqual(['dispute.updated']);
    expect(c1.next).toMatchObject({ funds_withdrawn: true, revision: 2 });
    const c2 = caseAfterNotice(c1.next, applyDisputeSignal(s1.next, 'won', notice(2))!.next, origin, at(2));
    expect(c2.events).toEqual(['dispute.won']);
    expect(c2.next).toMatchObject({ status: 'won', funds_withdrawn: false, closed_at: at(2) });
  });

  it('status: won by the money first; accepted over lost; under_review once submitted', () => {
    const none = { accepted_at: null, submitted_at: null };
    expect(caseStatusOf({ status: 'open' }, none)).toBe('needs_response');
    expect(caseStatusOf({ status: 'open' }, { ...none, submitted_at: at(1) })).toBe('under_review');
    expect(caseStatusOf({ status: 'lost' }, { ...none, accepted_at: at(1) })).toBe('accepted');
    expect(caseStatusOf({ status: 'lost' }, { ...none, submitted_at: at(1) })).toBe('lost');
    expect(caseStatusOf({ status: 'won' }, { ...none, accepted_at: at(1) })).toBe('won');
  });

  it('reasons in our words from Visa groups and Mastercard codes; a MED is pix_fraud', () => {
    expect(['10.4', '11.3', '12.6.1', '13.1', '4837', '4853', '4834', 'XX', null].map((c) => reasonOf('chargeback', c))).toEqual([
      'fraudulent',
      'authorization',
      'processing_error',
      'consumer_dispute',
      'fraudulent',
      'consumer_dispute',
      'processing_error',
      'general',
      'general',
    ]);
    expect(reasonOf('pix_med', 'scam')).toBe('pix_fraud');
  });

  it('warns within 48 hours of the deadline, while it needs a response, once', () => {
    const c = caseAfterNotice(null, applyDisputeSignal(null, 'notified', notice(0))!.next, origin, at(0)).next;
    const due = Date.parse(c.evidence_due_by!);
    expect(evidenceDueSoon(c, new Date(due - 49 * 3_600_000))).toBe(false);
    expect(evidenceDueSoon(c, new Date(due - 47 * 3_600_000))).toBe(true);
    expect(evidenceDueSoon(c, new Date(due + 1))).toBe(false);
    expect(evidenceDueSoon({ ...c, evidence_due_soon_sent: true }, new Date(due - 3_600_000))).toBe(false);
    expect(evidenceDueSoon({ ...c, status: 'under_review' }, new Date(due - 3_600_000))).toBe(false);
  });

  it('names every document a reason requires that is not staged', () => {
    const reason = {
      code: 'GoodsOrServicesProvided',
      documents: [
        { type: 'Invoice', requirement: 'required' as const },
        { type: 'ProofOfDelivery', requirement: 'alternative_required' as const },
        { type: 'ProofOfService', requirement: 'alternative_required' as const },
        { type: 'Note', requirement: 'optional' as const },
      ],
    };
    expect(missingDocuments(reason, ['Note']).map((m) => m.field)).toEqual([
      'documents.Invoice',
      'documents.ProofOfDelivery|ProofOfService',
    ]);
    expect(missingDocuments(reason, ['Invoice', 'ProofOfService'])).toEqual([]);
  });

  it('any notice sequence: one created, status follows the money, a closing event at most once, revision counts writes', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<DisputeSignal>('notified', 'withdrawn', 'won', 'lost'), { maxLength: 12 }), (signals) => {
        let money: Dispute | null = null;
        let kase: DisputeCase | null = null;
        const events: string[] = [];
        let writes = 0;
        signals.forEach((s, i) => {
          const step = applyDisputeSignal(money, s, notice(i));
          if (!step) return;
          money = step.next;
          const r = caseAfterNotice(kase, step.next, origin, at(i));
          kase = r.next;
          writes++;
          events.push(...r.events);
        });
        const m = money as Dispute | null;
        const k = kase as DisputeCase | null;
        if (!m) return expect(k).toBeNull();
        expect(events.filter((e) => e === 'dispute.created')).toHaveLength(1);
        expect(events[0]).toBe('dispute.created');
        expect(events.filter((e) => e === 'dispute.won').length).toBeLessThanOrEqual(1);
        expect(k!.status).toBe(m.status === 'won' ? 'won' : m.status === 'lost' ? 'lost' : 'needs_response');
        expect(k!.revision).toBe(writes);
        expect(k!.funds_withdrawn).toBe(m.stage === 1 || m.stage === 3);
      }),
      { numRuns: 400 },
    );
  });
});
