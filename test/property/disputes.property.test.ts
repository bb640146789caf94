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
      fc.property(fc.array(fc.constantFrom<DisputeSignal>('notified', 'withdrawn', 'won', 'lost'), { maxLength: 12 }), (signals) => {
        const { d, net, events, trace } = run(signals);
        if (!d) return expect(net).toBe(0);
        // Only announced (stage 0): nothing withdrawn yet.
        expect(net).toBe(d.status === 'won' || d.stage === 0 ? 0 : -2500);
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

  describe('fraud returns (PIX MED)', () => {
    const fr = (at: number, over: Partial<Parameters<typeof applyDisputeSignal>[2]> = {}) => ({
      ...notice(at),
      kind: 'fraud_return' as const,
      reasonCode: 'scam',
      deadline: '2026-12-01T00:00:00.000Z',
      ...over,
    });

    it('an infraction opens it (reason, deadline, no money); closed without a return: won, no money', () => {
      const open = applyDisputeSignal(null, 'withdrawn', fr(1))!;
      expect(open.next).toMatchObject({
        kind: 'fraud_return',
        status: 'open',
        stage: 1,
        reason_code: 'scam',
        deadline: '2026-12-01T00:00:00.000Z',
        closed_at: null,
      });
      expect(open.movements).toEqual([]);
      expect(open.events).toEqual(['payment.disputed']);
      expect(applyDisputeSignal(open.next, 'withdrawn', fr(2))).toBeNull();
      const won = applyDisputeSignal(open.next, 'won', fr(3))!;
      expect(won.next).toMatchObject({ status: 'won', stage: 2, closed_at: notice(3).at });
      expect(won.movements).toEqual([]);
      expect(won.events).toEqual(['payment.dispute_won']);
    });

    it('a fraud return loses it with one pix_fraud_return debit of the returned amount, from any stage, once', () => {
      const open = applyDisputeSignal(null, 'withdrawn', fr(1))!.next;
      const lost = applyDisputeSignal(open, 'lost', fr(2, { amountMinor: 1800 }))!;
      expect(lost.next).toMatchObject({ status: 'lost', stage: 3, amount_minor: 1800, reason_code: 'scam' });
      expect(lost.movements).toEqual([{ amountMinor: -1800, reason: 'pix_fraud_return', stage: 3 }]);
      expect(lost.events).toEqual(['payment.dispute_lost']);
      expect(applyDisputeSignal(lost.next, 'lost', fr(3, { amountMinor: 1800 }))).toBeNull();
      const direct = applyDisputeSignal(null, 'lost', fr(1, { reasonCode: null, deadline: null }))!;
      expect(direct.events).toEqual(['payment.disputed', 'payment.dispute_lost']);
      expect(direct.movements).toEqual([{ amountMinor: -2500, reason: 'pix_fraud_return', stage: 3 }]);
      const won = applyDisputeSignal(null, 'won', fr(1))!.next;
      expect(applyDisputeSignal(won, 'lost', fr(2))!.movements).toHaveLength(1);
    });

    it('a further return of the same Pix debits only what was not debited yet, and says lost again; less or equal: nothing', () => {
      const lost = applyDisputeSignal(null, 'lost', fr(1, { amountMinor: 1000 }))!.next;
      const more = applyDisputeSignal(lost, 'lost', fr(2, { amountMinor: 1500 }))!;
      expect(more.next).toMatchObject({ status: 'lost', stage: 3, amount_minor: 1500, opened_at: lost.opened_at });
      expect(more.movements).toEqual([{ amountMinor: -500, reason: 'pix_fraud_return', stage: 3 }]);
      expect(more.events).toEqual(['payment.dispute_lost']);
      expect(applyDisputeSignal(more.next, 'lost', fr(3, { amountMinor: 1500 }))).toBeNull();
      expect(applyDisputeSignal(more.next, 'lost', fr(3, { amountMinor: 1000 }))).toBeNull();
      expect(applyDisputeSignal(more.next, 'won', fr(3))).toBeNull();
      expect(applyDisputeSignal(more.next, 'withdrawn', fr(3))).toBeNull();
    });

    it('any order of totals: what was debited is the largest total seen once lost', () => {
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 8 }), (totals) => {
          let d: Dispute | null = null;
          let net = 0;
          totals.forEach((t, i) => {
            const step = applyDisputeSignal(d, 'lost', fr(i, { amountMinor: t }));
            if (!step) return;
            net += step.movements.reduce((sum, m) => sum + m.amountMinor, 0);
            d = step.next;
          });
          expect(net).toBe(-Math.max(...totals));
          expect((d as Dispute | null)?.amount_minor).toBe(Math.max(...totals));
        }),
        { numRuns: 300 },
      );
    });

    it('any sequence: at most one debit (only once lost), events once, a stored kind wins over the notice', () => {
      fc.assert(
        fc.property(fc.array(fc.constantFrom<DisputeSignal>('withdrawn', 'won', 'lost'), { maxLength: 12 }), (signals) => {
          let d: Dispute | null = null;
          let net = 0;
          const events: string[] = [];
          signals.forEach((s, i) => {
            // Later notices may omit the kind: the stored dispute keeps it.
            const step = applyDisputeSignal(d, s, i === 0 ? fr(i) : notice(i));
            if (!step) return;
            net += step.movements.reduce((sum, m) => sum + m.amountMinor, 0);
            events.push(...step.events);
            d = step.next;
          });
          const final = d as Dispute | null;
          expect(net).toBe(final?.status === 'lost' ? -2500 : 0);
          if (final) expect(final.kind).toBe('fraud_return');
          for (const e of ['payment.disputed', 'payment.dispute_won', 'payment.dispute_lost'])
            expect(events.filter((x) => x === e).length).toBeLessThanOrEqual(1);
        }),
        { numRuns: 300 },
      );
    });
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
    expect(disputeSignalOf('NOTIFICATION_OF_CHARGEBACK', undefined)).toBe('notified');
    expect(disputeSignalOf('DISPUTE_DEFENSE_PERIOD_ENDED', undefined)).toBe('notified');
    expect(disputeSignalOf('REQUEST_FOR_INFORMATION', undefined)).toBeNull();
  });
});
