/** The sandbox payout rails in memory: scheduled settlement steps are recorded; live mode has no rail (as wired). */
import type { PayoutRail, PayoutRails, SettlementStep } from '../../../shared/application/ports';

export class MemoryPayoutRails implements PayoutRails {
  readonly scheduled: Array<{ payoutId: string; step: SettlementStep }> = [];
  private readonly sandbox: PayoutRail = {
    schedule: async (payoutId, step) => {
      this.scheduled.push({ payoutId, step });
    },
  };

  constructor(private readonly live: PayoutRail | null = null) {}

  forMode(livemode: boolean): PayoutRail | null {
    return livemode ? this.live : this.sandbox;
  }

  /** Removes and returns the steps scheduled so far (what the settlement worker would receive next). */
  drain(): Array<{ payoutId: string; step: SettlementStep }> {
    return this.scheduled.splice(0);
  }
}
