/**
 * Where the library's flush timer comes from. Injected (with a `Clock`) so tests can move time
 * by hand instead of sleeping; the default uses Node's timers.
 */
export interface Scheduler {
  /**
   * Calls `callback` once, after `delayMs`. Returns a function that cancels the call. The timer
   * must not keep the process alive on its own.
   */
  setTimeout(callback: () => void, delayMs: number): () => void;
}

/** Node's setTimeout, `unref`'d: a pending flush never holds the process open. */
export const systemScheduler: Scheduler = {
  setTimeout(callback, delayMs) {
    const timer = setTimeout(callback, delayMs);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
