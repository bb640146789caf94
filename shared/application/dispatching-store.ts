/**
 * A PaymentStore that hands each committed transaction's events to the webhook
 * queue. A failure here never fails the request (the state change is already
 * committed): the event stays in the outbox and the sweeper enqueues it.
 */
import type { DomainEvent } from '../domain/events';
import type { PaymentStore } from './payment-ports';

export function dispatchingStore(store: PaymentStore, dispatch: (events: DomainEvent[]) => Promise<void>, onError: (e: unknown) => void): PaymentStore {
  const after = async (events: DomainEvent[]) => {
    try {
      await dispatch(events);
    } catch (e) {
      onError(e);
    }
  };
  return {
    ...store,
    async recordNewPayment(op) {
      await store.recordNewPayment(op);
      await after(op.events);
    },
    async transitionPayment(op) {
      await store.transitionPayment(op);
      await after(op.events);
    },
    async transitionSession(op) {
      await store.transitionSession(op);
      await after(op.events);
    },
  };
}
