/** How payouts and balances look on the wire (SPEC.md 2.6, 4.4). */
import type { BalanceView } from '../../application/ports';
import type { BatchResult, BeneficiaryCheck } from '../../application/payouts';
import type { CurrencyCode } from '../../domain/geo';
import { fromMinor } from '../../domain/money';
import type { Payout, PayoutStatus } from '../../domain/payouts/payout';

const MESSAGES: Readonly<Record<PayoutStatus, string>> = {
  pending: 'Payout created; it is waiting to start and can still be cancelled.',
  processing: 'Payout created and being processed.',
  completed: 'Payout completed.',
  failed: 'Payout failed.',
  cancelled: 'Payout cancelled.',
  refunded: 'Payout refunded.',
};

/** The payout record (GET /api/v1/payout/{id}); the beneficiary is already masked when stored. */
export function payoutRecord(p: Payout) {
  return {
    payout_id: p.payout_id,
    status: p.status,
    amount: fromMinor(p.amount_minor, p.currency),
    currency: p.currency,
    method_code: p.method_code,
    beneficiary: p.beneficiary,
    description: p.description,
    metadata: p.metadata,
    failure_reason: p.failure_reason,
    created_at: p.created_at,
    completed_at: p.completed_at,
  };
}

export const payoutView = (p: Payout) => ({ success: true, ...payoutRecord(p) });

/** POST /api/v1/payout. */
export const createdPayoutView = (p: Payout) => ({
  success: true,
  payout_id: p.payout_id,
  status: p.status,
  created_at: p.created_at,
  message: MESSAGES[p.status],
});

/** POST /api/v1/payouts/batch: each request's answer at its index; a payout with its provider's error still names it. */
export function payoutBatchView(r: BatchResult) {
  const results = r.results.map(({ index, payout, error }) => {
    const made = payout
      ? { payout_id: payout.payout_id, status: payout.status, created_at: payout.created_at, message: MESSAGES[payout.status] }
      : {};
    // A provider that did not answer leaves a made payout processing: a success whose outcome follows by webhook.
    const ok = payout !== undefined && (!error || error.code === 'PROVIDER_UNAVAILABLE');
    const err = error
      ? { error: { code: error.code, message: error.message, ...(error.details?.length ? { details: error.details } : {}) } }
      : {};
    return { index, success: ok, ...made, ...err };
  });
  const accepted = results.filter((x) => x.success).length;
  return { success: true, batch_id: r.batchId, accepted, rejected: results.length - accepted, results };
}

/** POST /api/v1/payout/{id}/cancel. */
export const cancelledPayoutView = (p: Payout) => ({
  success: true,
  payout_id: p.payout_id,
  status: p.status,
  message: 'Payout cancelled; the amount is back in your balance.',
});

/** GET /api/v1/payout: one page with the total (SPEC), has_more and next_cursor; offset (SPEC) or starting_after (next_cursor). */
export function payoutListView(page: { items: readonly Payout[]; total: number; more: boolean }, q: { limit: number; offset: number }) {
  return {
    success: true,
    data: page.items.map((p) => ({
      payout_id: p.payout_id,
      status: p.status,
      amount: fromMinor(p.amount_minor, p.currency),
      currency: p.currency,
      beneficiary_name: p.beneficiary.name,
      created_at: p.created_at,
    })),
    pagination: { total: page.total, limit: q.limit, offset: q.offset },
    has_more: page.more,
    /** The last payout's id when more remain: the next page's starting_after. */
    next_cursor: page.more ? (page.items.at(-1)?.payout_id ?? null) : null,
  };
}

/** GET /api/v1/balance (and the sandbox top-up answer). */
export function balancesView(livemode: boolean, list: readonly BalanceView[]) {
  return {
    success: true,
    livemode,
    balances: list.map((b) => ({
      currency: b.currency,
      available: fromMinor(b.available_minor, b.currency as CurrencyCode),
      updated_at: b.updated_at,
    })),
  };
}

/** POST /api/v1/payout/methods/{code}/validate: HTTP 200 either way; errors name each bad field (SPEC.md 4.4.6). */
export function beneficiaryCheckView(r: BeneficiaryCheck) {
  if (!r.valid) return { success: true, valid: false, errors: r.errors };
  return { success: true, valid: true, beneficiary: { name: r.name, document_valid: r.document_valid, key_valid: r.key_valid } };
}
