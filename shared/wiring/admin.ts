/** Merchant administration for the ops CLI and the local stack's seed: merchants, keys, secrets, sandbox balances. */
import { randomIds, randomSecrets, systemClock } from '../adapters/crypto';
import { merchantAdmin } from '../application/merchants';
import { seedSandboxBalances } from '../application/payouts';
import { payoutDeps } from './payouts';
import { repositories } from './repositories';

/** `seedBalances: false` leaves a new sandbox merchant's test balances empty (tests that set their own). */
export function adminService(opts: { seedBalances?: boolean } = {}) {
  return merchantAdmin({
    ...repositories,
    ids: randomIds,
    secrets: randomSecrets,
    clock: systemClock,
    ...(opts.seedBalances === false ? {} : { seedTestBalances: (id: string) => seedSandboxBalances(payoutDeps(), id) }),
  });
}
