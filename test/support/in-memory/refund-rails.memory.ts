/** The sandbox refund rails in memory: scheduled refund settlements are recorded; live mode has no rail (as wired). */
import type { RefundRail, RefundRails } from '../../../shared/application/ports';

export class MemoryRefundRails implements RefundRails {
  readonly scheduled: string[] = [];
  private readonly sandbox: RefundRail = {
    schedule: async (refundId) => {
      this.scheduled.push(refundId);
    },
  };

  constructor(private readonly live: RefundRail | null = null) {}

  forMode(livemode: boolean): RefundRail | null {
    return livemode ? this.live : this.sandbox;
  }

  /** Removes and returns the refunds scheduled so far (what the settlement worker would receive next). */
  drain(): string[] {
    return this.scheduled.splice(0);
  }
}
