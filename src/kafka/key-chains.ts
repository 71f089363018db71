/**
 * Work queued per key, each run after the one queued before it under the same key (the consumer's
 * `keyOrdered`: messages of one key in one partition, in offset order); different keys run at once.
 */
export class KeyChains {
  /** Per key: the last work queued (running or waiting), settled once the next may start. */
  private readonly chains = new Map<string, Promise<void>>();

  /**
   * Runs `work` once the work queued before under `key` has settled or called its `next` (it lets
   * the next one start early). `work` must never reject.
   */
  run(key: string, work: (next: () => void) => Promise<void>): void {
    const current = (this.chains.get(key) ?? Promise.resolve()).then(
      () => new Promise<void>((next) => void work(next).finally(next)),
    );
    this.chains.set(key, current);
    void current.then(() => {
      if (this.chains.get(key) === current) this.chains.delete(key);
    });
  }
}
