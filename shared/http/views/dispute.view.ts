/** How disputes look on the wire (DESIGN.md 9.4): the resource (with its defense reasons on retrieve) and its list page. */
import type { DefenseReason } from '../../application/providers';
import type { DisputeCase } from '../../domain/disputes/dispute-case';
import { disputeCaseFields } from '../../domain/disputes/dispute-events';

export function disputeView(d: DisputeCase, defenseReasons?: readonly DefenseReason[]) {
  return {
    success: true,
    ...disputeCaseFields(d),
    ...(defenseReasons
      ? { defense_reasons: defenseReasons.map((r) => ({ code: r.code, documents: r.documents.map((x) => ({ ...x })) })) }
      : {}),
  };
}

/** GET /api/v1/disputes: one page with the total, has_more and next_cursor (as the payouts' list). */
export function disputeListView(
  page: { items: readonly DisputeCase[]; total: number; more: boolean },
  q: { limit: number; offset: number },
) {
  return {
    success: true,
    data: page.items.map(disputeCaseFields),
    pagination: { total: page.total, limit: q.limit, offset: q.offset },
    has_more: page.more,
    next_cursor: page.more ? (page.items.at(-1)?.dispute_id ?? null) : null,
  };
}
