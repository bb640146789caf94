/** `balance transactions`: a merchant's ledger as a reconciliation listing (CSV, JSON or text). */
import { reconciliation, type LedgerOwner, type ReconciliationRow } from '../../shared/application/balance';
import type { CurrencyCode } from '../../shared/domain/geo';
import { ledgerDescription } from '../../shared/domain/ledger';
import { formatMinor } from '../../shared/domain/money';
import { reconciliationDeps } from '../../shared/wiring';

export const CSV_HEADER = ['created_at', 'id', 'type', 'amount', 'currency', 'balance_after', 'source_id', 'reference_id', 'description'];

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. Text a merchant wrote
 * (references, descriptions) that a spreadsheet would run as a formula (= + - @, tab, CR) gets a leading '.
 */
export function csvField(value: string, text = true): string {
  const safe = text && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The listing's fields of one row: amounts in major units with the currency's decimals. */
export function reconciliationRecord(r: ReconciliationRow) {
  const t = r.transaction;
  const currency = t.currency as CurrencyCode;
  return {
    created_at: t.created_at,
    id: t.entry_id,
    type: t.type,
    amount: formatMinor(t.amount_minor, currency),
    currency: t.currency,
    balance_after: formatMinor(t.balance_after_minor, currency),
    source_id: t.object_id,
    reference_id: r.reference_id,
    description: ledgerDescription(t.reason, t.object_id),
  };
}

export const csvLine = (rec: ReturnType<typeof reconciliationRecord>) =>
  [
    csvField(rec.created_at, false),
    csvField(rec.id, false),
    csvField(rec.type, false),
    csvField(rec.amount, false),
    csvField(rec.currency, false),
    csvField(rec.balance_after, false),
    csvField(rec.source_id),
    csvField(rec.reference_id),
    csvField(rec.description),
  ].join(',');

export async function balanceTransactions(
  owner: LedgerOwner,
  filters: { currency?: string; from_date?: string; to_date?: string },
  format: 'csv' | 'json' | 'text',
  out: (line: string) => void,
): Promise<number> {
  const rows = reconciliation(reconciliationDeps(), owner, filters);
  let count = 0;
  if (format === 'csv') {
    out(CSV_HEADER.join(','));
    for await (const r of rows) {
      out(csvLine(reconciliationRecord(r)));
      count++;
    }
    return count;
  }
  const records: ReturnType<typeof reconciliationRecord>[] = [];
  for await (const r of rows) records.push(reconciliationRecord(r));
  if (format === 'json') out(JSON.stringify(records, null, 2));
  else if (records.length === 0) out('No balance transactions.');
  else
    for (const t of records) {
      const ref = t.reference_id ? `  ref ${t.reference_id}` : '';
      out(
        `${t.created_at}  ${t.id}  ${t.type.padEnd(15)} ${t.amount.padStart(14)} ${t.currency}  ` +
          `balance ${t.balance_after.padStart(14)}  ${t.source_id}${ref}  ${t.description}`,
      );
    }
  return records.length;
}
