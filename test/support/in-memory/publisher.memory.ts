/**
 * The event publisher as shared/wiring/webhooks.ts builds it (dispatchEvents to the delivery queue, then
 * markDispatched; a failure is swallowed and the events stay in the outbox), recording every batch it is
 * handed, in order, so tests can assert exactly which events a use case published.
 */
import type { EventPublisher } from '../../../shared/application/ports';
import { dispatchEvents, type WebhookDeps } from '../../../shared/application/webhooks';
import type { DomainEvent } from '../../../shared/domain/events';

export class RecordingPublisher implements EventPublisher {
  /** Each publish call's events, in call order. */
  readonly batches: DomainEvent[][] = [];
  /** Batches whose dispatch failed (left in the outbox for the sweeper). */
  readonly failed: DomainEvent[][] = [];

  constructor(private readonly dispatch?: Pick<WebhookDeps, 'events' | 'queue' | 'clock'>) {}

  async publish(events: readonly DomainEvent[]): Promise<void> {
    this.batches.push(structuredClone([...events]));
    if (!this.dispatch) return;
    try {
      await dispatchEvents(this.dispatch, events);
    } catch {
      this.failed.push(structuredClone([...events]));
    }
  }

  /** Every published event, in publish order. */
  get events(): DomainEvent[] {
    return this.batches.flat();
  }

  types(objectId?: string): string[] {
    return this.events.filter((e) => objectId === undefined || e.object_id === objectId).map((e) => e.type);
  }

  clear(): void {
    this.batches.length = 0;
    this.failed.length = 0;
  }
}
