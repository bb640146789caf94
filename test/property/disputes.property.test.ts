/**
 * Disputes as random notice sequences (duplicates, replays, any order): the money a dispute has moved always
 * matches where its case stands (withdrawn while open or lost, returned once won), each event is sent at most
 * once per stage, and a lost case never moves again.
 */
import fc from 'fast-check';
import { applyDisputeSignal, type Dispute, type DisputeSignal } from '../../shared/domain/payments/dispute';
import { disputeSignalOf } from '../../shared/adapters/providers/adyen/adyen.notifications';

const notice = (at: number) => ({
  amountMinor: 2500,
  reasonCode: '10.4',
  providerReference: 'DSP1',
  at: new Date(at * 1000).toISOString(),
});

function run(signals: readonly DisputeSignal[]) {
  let d: Dispute | null = null;
  let net = 0;
  const events: string[] = [];
  const trace: Array<Dispute | null> = [];
  signals.forEach((s, i) => {
    const step = applyDisputeSignal(d, s, notice(i));
    if (step) {
      net += step.movements.reduce((sum, m) => sum + m.amountMinor, 0);
      events.push(...step.events);
      d = step.next;
    }
    trace.push(d);
  });
  return { d: d as Dispute | null, net, events, trace };
}

describe('dispute rules', () => {
  it('chargeback, reversal, second chargeback: debit, credit, debit; disputed, won, lost', () => {
    const a = applyDisputeSignal(null, 'withdrawn', notice(1))!;
    expect(a.next).toMatchObject({ status: 'open', stage: 1, amount_minor: 2500, closed_at: null });
    expect(a.movements).toEqual([{ amountMinor: -2500, reason: 'chargeback', stage: 1 }]);
    expect(a.events).toEqual(['payment.disputed']);
    expect(applyDisputeSignal(a.next, 'withdrawn', notice(2))).toBeNull();
    const b = applyDisputeSignal(a.next, 'won', notice(3))!;
    expect(b.movements).toEqual([{ amountMinor: 2500, reason: 'chargeback_reversal', stage: 2 }]);
    expect(b.events).toEqual(['payment.dispute_won']);
    const c = applyDisputeSignal(b.next, 'lost', notice(4))!;
    expect(c.next).toMatchObject({ status: 'lost', stage: 3 });
    expect(c.movements).toEqual([{ amountMinor: -2500, reason: 'chargeback', stage: 3 }]);
    expect(applyDisputeSignal(c.next, 'won', notice(5))).toBeNull();
  });

  it('a reversal first writes the chargeback it implies; lost while open moves no money', () => {
    const r = applyDisputeSignal(null, 'won', notice(1))!;
    expect(r.movements.map((m) => m.amountMinor)).toEqual([-2500, 2500]);
    expect(r.events).toEqual(['payment.disputed', 'payment.dispute_won']);
    const open = applyDisputeSignal(null, 'withdrawn', notice(1))!.next;
    const lost = applyDisputeSignal(open, 'lost', notice(2))!;
    expect(lost.movements).toEqual([]);
    expect(lost.events).toEqual(['payment.dispute_lost']);
  });

  it('any sequence: money moved matches the case, events once per stage, lost is final', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<DisputeSignal>('withdrawn', 'won', 'lost'), { maxLength: 12 }), (signals) => {
        const { d, net, events, trace } = run(signals);
        if (!d) return expect(net).toBe(0);
        expect(net).toBe(d.status === 'won' ? 0 : -2500);
        expect(events.filter((e) => e === 'payment.disputed')).toHaveLength(1);
        expect(events.filter((e) => e === 'payment.dispute_lost').length).toBeLessThanOrEqual(1);
        expect(events.filter((e) => e === 'payment.dispute_won').length).toBeLessThanOrEqual(1);
        const firstLost = trace.findIndex((t) => t?.status === 'lost');
        if (firstLost >= 0) for (const t of trace.slice(firstLost)) expect(t).toBe(trace[firstLost]);
        // Stages only go forward.
        const stages = trace.map((t) => t?.stage ?? 0);
        expect([...stages].sort()).toEqual(stages);
      }),
      { numRuns: 500 },
    );
  });

  it("maps Adyen's dispute event codes (disputeStatus optional: absent for Brazil)", () => {
    expect(disputeSignalOf('CHARGEBACK', undefined)).toBe('withdrawn');
    expect(disputeSignalOf('CHARGEBACK', 'Undefended')).toBe('withdrawn');
    expect(disputeSignalOf('CHARGEBACK', 'Lost')).toBe('lost');
    expect(disputeSignalOf('CHARGEBACK', 'Accepted')).toBe('lost');
    expect(disputeSignalOf('CHARGEBACK_REVERSED', 'Pending')).toBe('won');
    expect(disputeSignalOf('PREARBITRATION_WON', undefined)).toBe('won');
    expect(disputeSignalOf('SECOND_CHARGEBACK', undefined)).toBe('lost');
    expect(disputeSignalOf('PREARBITRATION_LOST', 'Lost')).toBe('lost');
    expect(disputeSignalOf('NOTIFICATION_OF_CHARGEBACK', undefined)).toBeNull();
    expect(disputeSignalOf('REQUEST_FOR_INFORMATION', undefined)).toBeNull();
  });
});
