/** Balances and their ledger: balance transactions and the ledger fold. */
export * from './balance-transactions';
export * from './ledger-fold';
export * from './ledger-ports';
