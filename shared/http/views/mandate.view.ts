/** How mandates look on the wire (DESIGN.md 9.3): the resource, its list page, and the approval the payer sees. */
import type { Mandate } from '../../domain/mandates/mandate';
import { mandateFields } from '../../domain/mandates/mandate-events';

export function mandateRecord(m: Mandate) {
  return {
    ...mandateFields(m),
    customer: { name: m.customer.name, email: m.customer.email, document: m.customer.document_masked },
    payer: m.payer,
    approval: m.approval,
    approval_expires_at: m.approval_expires_at,
    success_url: m.success_url,
    cancel_url: m.cancel_url,
    charges_count: m.charges_count ?? 0,
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
}

export const mandateView = (m: Mandate) => ({ success: true, ...mandateRecord(m) });

/** GET /api/v1/mandates: one page with the total, has_more and next_cursor (as the payouts' list). */
export function mandateListView(page: { items: readonly Mandate[]; total: number; more: boolean }, q: { limit: number; offset: number }) {
  return {
    success: true,
    data: page.items.map(mandateRecord),
    pagination: { total: page.total, limit: q.limit, offset: q.offset },
    has_more: page.more,
    next_cursor: page.more ? (page.items.at(-1)?.mandate_id ?? null) : null,
  };
}
