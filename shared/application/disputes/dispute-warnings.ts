/**
 * dispute.evidence_due_soon (DESIGN.md 9.4): a case that still needs a response 48 hours before its deadline warns its
 * merchant once. The cases sit on the dispute work partitions by when their warning is due (no Scan); each warned
 * case, or one whose deadline passed before a run saw it, leaves them with the same conditional write.
 */
import { evidenceDueSoon, type DisputeCase } from '../../domain/disputes/dispute-case';
import { disputeCaseEvent } from '../../domain/disputes/dispute-events';
import { commitAndPublish, WriteConflict } from '../ports';
import type { DisputeDeps } from './dispute-deps';

/** Cases read per run: a run every 10 minutes warns 500 a run, far above any merchant base's dispute rate. */
const BATCH = 500;

export interface DisputeWarningResult extends Record<string, number> {
  warned: number;
  /** Due on the work index but no longer warnable (answered, closed, or its deadline already passed): taken off. */
  cleared: number;
}

export async function warnDisputesDueSoon(
  deps: Pick<DisputeDeps, 'disputes' | 'ids' | 'publisher'>,
  now: Date,
): Promise<DisputeWarningResult> {
  const r: DisputeWarningResult = { warned: 0, cleared: 0 };
  const at = now.toISOString();
  for (const id of await deps.disputes.dueForWarning(at, BATCH)) {
    const d = await deps.disputes.get(id);
    if (!d) continue;
    const warn = evidenceDueSoon(d, now);
    const next: DisputeCase = { ...d, evidence_due_soon_sent: true, revision: d.revision + 1, updated_at: warn ? at : d.updated_at };
    try {
      await commitAndPublish(
        deps.publisher,
        deps.disputes.save({
          next,
          readRevision: d.revision,
          events: warn ? [disputeCaseEvent('dispute.evidence_due_soon', next, deps.ids.newId('evt_'), at)] : [],
          now: at,
        }),
      );
      if (warn) r.warned++;
      else r.cleared++;
    } catch (e) {
      // Moved meanwhile (a notice, the merchant's answer): the next run reads it as it is then.
      if (!(e instanceof WriteConflict)) throw e;
    }
  }
  return r;
}
