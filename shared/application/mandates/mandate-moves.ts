/** A mandate's status move with its event: one conditional write (DESIGN.md 9.3). */
import { canMandateTransition, MANDATE_EVENT, type Mandate, type MandateStatus } from '../../domain/mandates/mandate';
import { mandateEvent } from '../../domain/mandates/mandate-events';
import { commitAndPublish, WriteConflict, type IdempotencyDone } from '../ports';
import type { MandateDeps } from './mandate-deps';

/** A status move with its event, conditional on the status read; false when another writer moved it first. */
export async function moveMandate(
  deps: MandateDeps,
  m: Mandate,
  to: MandateStatus,
  patch: Partial<Mandate>,
  done?: IdempotencyDone,
): Promise<Mandate | null> {
  if (!canMandateTransition(m.status, to)) return null;
  const at = deps.clock.now().toISOString();
  const next: Mandate = { ...m, ...patch, status: to, updated_at: at };
  const type = MANDATE_EVENT[to];
  try {
    await commitAndPublish(
      deps.publisher,
      deps.mandates.transition({
        mandate: m,
        to,
        patch,
        events: type ? [mandateEvent(type, next, deps.ids.newId('evt_'), at)] : [],
        now: at,
        done,
      }),
    );
    return next;
  } catch (e) {
    if (e instanceof WriteConflict && e.entity === 'mandate') return null;
    throw e;
  }
}
