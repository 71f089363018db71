/**
 * Which failures of a repeated operation to log: the first of a streak, then at most one line per
 * `everyMs` carrying how many failed since the last line; and, once it works again, how long the
 * streak was. A commit retried every 500 ms while Kafka is away then writes a line every 10 s, not
 * two a second.
 */
export class FailureStreak {
  private failures = 0;
  private untold = 0;
  private toldAtMs = 0;

  constructor(private readonly everyMs: number) {}

  /** A failure at `nowMs`: the failures to report now (this one included), or undefined to stay quiet. */
  failed(nowMs: number): number | undefined {
    this.failures++;
    this.untold++;
    if (this.failures > 1 && nowMs - this.toldAtMs < this.everyMs) return undefined;
    this.toldAtMs = nowMs;
    const told = this.untold;
    this.untold = 0;
    return told;
  }

  /** A success: the length of the streak it ends, or undefined when nothing had failed. */
  succeeded(): number | undefined {
    if (this.failures === 0) return undefined;
    const streak = this.failures;
    this.failures = this.untold = 0;
    return streak;
  }
}
