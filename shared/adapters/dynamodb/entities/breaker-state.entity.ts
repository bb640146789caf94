/**
 * A provider's breaker as last reported (routing, DESIGN.md 9.2): one item per provider and kind in one partition,
 * written only when a function container's breaker changes state (rare), read by `providers stats`.
 */
import { envelope, type EntityModel } from '../keys';

export const breakerStateEntity = {
  entity: 'breaker_state',
  version: 1,
  key: (provider: string, kind: string) => ({ PK: 'BREAKERS', SK: `${provider}#${kind}` }),
  item: (provider: string, kind: string, state: string, at: string) => ({
    ...breakerStateEntity.key(provider, kind),
    ...envelope(breakerStateEntity),
    provider,
    kind,
    state,
    at,
  }),
} as const satisfies EntityModel;
