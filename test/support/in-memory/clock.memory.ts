/** A clock tests move by hand: expiry is reached by advancing it, never by waiting. */
import type { Clock } from '../../../shared/application/ports';

/** Far from the real date on purpose, so code that reads Date.now() instead of the Clock port stands out. */
export const MEMORY_EPOCH = '2031-03-10T12:00:00.000Z';

export class FakeClock implements Clock {
  private ms: number;

  constructor(start: string | Date = MEMORY_EPOCH) {
    this.ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  iso(): string {
    return this.now().toISOString();
  }

  advance(ms: number): Date {
    this.ms += ms;
    return this.now();
  }

  advanceSeconds(s: number): Date {
    return this.advance(s * 1000);
  }

  advanceMinutes(m: number): Date {
    return this.advance(m * 60_000);
  }

  set(at: string | Date): void {
    this.ms = new Date(at).getTime();
  }
}
