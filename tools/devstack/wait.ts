export interface PollUntilOptions<T> {
  timeoutMs: number;
  intervalMs: number;
  /** Returns the value once the condition holds, undefined to keep polling. May throw to give up. */
  probe: () => Promise<T | undefined>;
}

/** Polls `probe` until it returns a value or `timeoutMs` passes (then resolves undefined). */
export async function pollUntil<T>(options: PollUntilOptions<T>): Promise<T | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await options.probe();
    if (value !== undefined) return value;
    if (Date.now() + options.intervalMs > deadline) return undefined;
    await delay(options.intervalMs);
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
