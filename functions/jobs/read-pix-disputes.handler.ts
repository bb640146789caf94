/**
 * Scheduled: the PIX PSP's infractions (MED) read and put on their live PIX payments as disputes (issue 33). Efí
 * documents no infraction callback, so this read is how a case reaches the merchant: payment.disputed with its
 * reason and deadline, then payment.dispute_won (closed without a return) or payment.dispute_lost (returned: one
 * pix_fraud_return debit). A run the PSP does not answer counts as failed (PixDisputeReadFailed; the alarm
 * `pix-disputes-unread` pages after three in an hour) and the next run reads the same window again. Each run also
 * warns the merchants of disputes (every kind, both modes) still unanswered 48 hours before their deadline
 * (dispute.evidence_due_soon), logged, with no metric of its own.
 */
import { readPixDisputes } from '../../shared/application/rails';
import { ProviderUnavailable } from '../../shared/application/providers';
import { warnDisputesDueSoon } from '../../shared/application/disputes';
import { disputeDeps, paymentDeps } from '../../shared/wiring';
import { config } from '../../shared/config';
import { scheduledHandler } from '../../shared/workers/scheduled-handler';
import { recordProviderAmountMismatch } from '../../shared/observability/provider-metrics';
import { EFI } from '../../shared/adapters/providers/efi/efi.client';

const none = { read: 0, applied: 0, unchanged: 0, deferred: 0, mismatched: 0, unknown: 0 };

export const handler = scheduledHandler({
  run: async (now) => {
    const warnings = await warnDisputesDueSoon(disputeDeps(), now);
    try {
      const r = await readPixDisputes(paymentDeps(), now, { windowSeconds: config.pixDisputeWindowDays * 86_400 });
      // An infraction or return whose amount is not within its payment's: an operator decides (the provider's alarm).
      if (r && r.mismatched > 0) recordProviderAmountMismatch(EFI, r.mismatched);
      return { ...(r ?? none), configured: r ? 1 : 0, failed: 0, ...warnings };
    } catch (e) {
      if (!(e instanceof ProviderUnavailable)) throw e;
      return { ...none, configured: 1, failed: 1, ...warnings };
    }
  },
  metrics: (r): Record<string, number> =>
    r.configured ? { PixDisputesRead: r.read, PixDisputesApplied: r.applied, PixDisputeReadFailed: r.failed } : {},
  log: (r) =>
    r.failed > 0 || r.mismatched > 0
      ? { level: 'warn', message: 'PIX infractions could not be read from the PSP, or named an amount outside their payment' }
      : r.applied > 0 || r.warned > 0
        ? { level: 'info', message: 'Applied PIX infractions (MED) to their payments, or warned of disputes due in 48 hours' }
        : null,
});
