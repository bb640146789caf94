/** zod schema of the balance transactions list (GET /api/v1/balance/transactions). */
import * as z from './zod';
import { CURRENCY_CODES } from './geo';
import { LEDGER_TYPES } from './ledger';
import { isoDate } from './payouts/payout.schemas';

export const balanceTransactionsQuery = z
  .object({
    currency: z.optional(z.enum(CURRENCY_CODES)),
    type: z.optional(z.enum(LEDGER_TYPES)),
    from_date: z.optional(isoDate),
    to_date: z.optional(isoDate),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 20),
    starting_after: z.optional(z.string().check(z.minLength(1), z.maxLength(4000))),
  })
  .check(
    z.refine((q) => !q.from_date || !q.to_date || Date.parse(q.from_date) <= Date.parse(q.to_date), {
      path: ['from_date'],
      message: 'must be before to_date',
    }),
  );
