import type { Clock } from '../core/clock';

/**
 * Partitions paused until their head message is due (a consumer's `notBefore`: a delay topic's
 * record), each resumed by its own timer unless the consumer stops meanwhile.
 */
export class DuePauses {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly clock: Clock,
    private readonly stopping: () => boolean,
  ) {}

  /** Pauses (kafkajs's batch `pause`, which returns its resume) until `dueAtMs`. */
  pauseUntil(dueAtMs: number, pause: () => () => void): void {
    const resume = pause();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopping()) resume();
    }, dueAtMs - this.clock.now());
    this.timers.add(timer);
  }

  /** No partition is resumed any more. */
  cancelAll(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
