/**
 * What the table's stream does with committed events (functions/webhooks/dispatch-events.handler.ts puts each
 * on the delivery queue), standing in for it in memory, and recording every batch a use case committed, in
 * order, so tests can assert exactly which events it published. A failed send is recorded (the stream would
 * retry it).
 */
import type { EventPublisher } from '../../../shared/application/ports';
import { dispatchEvents, type WebhookDeps } from '../../../shared/application/webhooks';
import type { DomainEvent } from '../../../shared/domain/events';

export class RecordingPublisher implements EventPublisher {
  /** Each publish call's events, in call order. */
  readonly batches: DomainEvent[][] = [];
  /** Batches whose dispatch failed (the stream's mapping would send them again). */
  readonly failed: DomainEvent[][] = [];

  constructor(private readonly dispatch?: Pick<WebhookDeps, 'queue'>) {}

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
