/** zod schema of the balance transactions list (GET /api/v1/balance/transactions). */
import * as z from 'zod';
import { CURRENCY_CODES } from './geo';
import { LEDGER_TYPES } from './ledger';
import { isoDate } from './payouts/payout.schemas';

export const balanceTransactionsQuery = z
  .object({
    currency: z.enum(CURRENCY_CODES).optional(),
    type: z.enum(LEDGER_TYPES).optional(),
    from_date: isoDate.optional(),
    to_date: isoDate.optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    starting_after: z.string().min(1).max(4000).optional(),
  })
  .refine((q) => !q.from_date || !q.to_date || Date.parse(q.from_date) <= Date.parse(q.to_date), {
    path: ['from_date'],
    message: 'must be before to_date',
  });
