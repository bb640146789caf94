/** GET /api/v1/balance/transactions: the ledger newest first, with each currency's running balance. */
import { listBalanceTransactions } from '../../shared/application/balance';
import { balanceTransactionsQuery } from '../../shared/domain/ledger.schemas';
import { httpHandler } from '../../shared/http/handler';
import { balanceTransactionsView } from '../../shared/http/views/balance-transaction.view';
import { balanceDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'listBalanceTransactions',
  query: balanceTransactionsQuery,
  handler: async ({ query, principal }) => ({
    body: balanceTransactionsView(await listBalanceTransactions(balanceDeps(), principal, query)),
  }),
});
