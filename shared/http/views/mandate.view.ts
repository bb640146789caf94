/** How mandates look on the wire (DESIGN.md 9.3): the resource, its list page, and the approval the payer sees. */
import type { QrCodes } from '../../application/ports';
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

/**
 * One mandate (create, retrieve, cancel, simulate): a pending recurrence QR also as a PNG data URI, as a direct PIX
 * payment shows its code (the list leaves the image out: retrieve the mandate for it).
 */
export async function mandateView(m: Mandate, ctx: { readonly qr: QrCodes }) {
  const record = mandateRecord(m);
  const qr = m.status === 'pending_approval' && m.approval?.type === 'pix_qr' ? await ctx.qr.pngDataUri(m.approval.pix_code) : null;
  return { success: true, ...record, ...(qr && m.approval ? { approval: { ...m.approval, pix_qr_code_base64: qr } } : {}) };
}

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
