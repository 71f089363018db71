import { performance } from 'node:perf_hooks';

/**
 * Polls `condition` every `intervalMs` until it returns a value, or until `timeoutMs` passed.
 * Returns the value, or undefined on timeout (the caller decides whether that is an error).
 */
export async function pollUntil<T>(
  condition: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<T | undefined> {
  const deadline = performance.now() + options.timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined) return value;
    if (performance.now() >= deadline) return undefined;
    await sleep(options.intervalMs ?? 50);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
