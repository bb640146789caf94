/** The webhooks queue and its dead-letter queue in memory; `failSends` stands for an unreachable SQS. */
import type { DeliveryMessage, DeliveryQueue } from '../../../shared/application/webhooks';

export interface QueuedMessage {
  readonly message: DeliveryMessage;
  readonly delaySeconds: number | undefined;
}

export class MemoryDeliveryQueue implements DeliveryQueue {
  readonly sent: QueuedMessage[] = [];
  readonly deadLetters: DeliveryMessage[] = [];
  /** While > 0, each send fails (and counts down). */
  failSends = 0;

  async send(messages: readonly DeliveryMessage[], delaySeconds?: number): Promise<void> {
    if (this.failSends > 0) {
      this.failSends--;
      throw new Error('SQS unavailable (simulated)');
    }
    for (const message of messages) this.sent.push({ message: structuredClone(message), delaySeconds });
  }

  async sendToDeadLetter(message: DeliveryMessage): Promise<void> {
    this.deadLetters.push(structuredClone(message));
  }

  /** Removes and returns every message sent so far (what a consumer would receive next). */
  drain(): QueuedMessage[] {
    return this.sent.splice(0);
  }
}
