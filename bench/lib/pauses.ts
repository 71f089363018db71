import { PerformanceObserver, monitorEventLoopDelay, type PerformanceEntry } from 'node:perf_hooks';

export interface Pauses {
  /** The longest the event loop was late to run a timer, in ms. */
  loopDelayMaxMs: number;
  /** The longest garbage-collection pause, and all of them together, in ms. */
  gcMaxMs: number;
  gcTotalMs: number;
}

/**
 * Watches this process's event loop and garbage collector from now until `stop()`: whether a
 * latency spike came from the process (a long GC, a blocked loop) or from outside it (the broker,
 * the network). Hookline runs in the bench's process in the scenarios that use it.
 */
export function watchPauses(): { stop(): Pauses } {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let gcMaxMs = 0;
  let gcTotalMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as PerformanceEntry[]) {
      gcMaxMs = Math.max(gcMaxMs, entry.duration);
      gcTotalMs += entry.duration;
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  return {
    stop() {
      delay.disable();
      gc.disconnect();
      return { loopDelayMaxMs: delay.max / 1e6, gcMaxMs, gcTotalMs };
    },
  };
}
