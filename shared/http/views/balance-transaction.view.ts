/** How ledger entries look as balance transactions (GET /api/v1/balance/transactions). */
import type { BalanceTransaction } from '../../application/balance';
import type { CurrencyCode } from '../../domain/geo';
import { ledgerDescription } from '../../domain/ledger';
import { fromMinor } from '../../domain/money';

export function balanceTransactionRecord(t: BalanceTransaction) {
  const currency = t.currency as CurrencyCode;
  return {
    id: t.entry_id,
    type: t.type,
    amount: fromMinor(t.amount_minor, currency),
    currency: t.currency,
    balance_after: fromMinor(t.balance_after_minor, currency),
    source_id: t.object_id,
    description: ledgerDescription(t.reason, t.object_id),
    created_at: t.created_at,
  };
}

export const balanceTransactionsView = (page: { data: readonly BalanceTransaction[]; has_more: boolean; next_cursor: string | null }) => ({
  success: true,
  data: page.data.map(balanceTransactionRecord),
  has_more: page.has_more,
  next_cursor: page.next_cursor,
});
