/**
 * Polls until `check` returns a value other than undefined/false (or stops throwing), bounded
 * by a deadline. Tests wait for conditions, never for fixed times.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out waiting for ${options.what ?? 'condition'}${detail}`);
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 50));
  }
}
