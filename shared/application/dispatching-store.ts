/**
 * Wraps a store so that each committed transaction's events are handed to the
 * webhook queue. A failure here never fails the request (the state change is
 * already committed): the event stays in the outbox and the sweeper enqueues it.
 */
import type { DomainEvent } from '../domain/events';

type Dispatch = (events: DomainEvent[]) => Promise<void>;

export function dispatchAfterCommit<T extends object>(
  store: T,
  methods: readonly (keyof T)[],
  dispatch: Dispatch,
  onError: (e: unknown) => void,
): T {
  const wrapped: Record<string, unknown> = { ...(store as Record<string, unknown>) };
  for (const name of methods) {
    const original = store[name] as unknown as (op: { events: DomainEvent[] }) => Promise<void>;
    wrapped[name as string] = async (op: { events: DomainEvent[] }) => {
      await original(op);
      try {
        await dispatch(op.events);
      } catch (e) {
        onError(e);
      }
    };
  }
  return wrapped as T;
}
