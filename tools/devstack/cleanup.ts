/**
 * In-process safety net for child processes: when the process exits (normally or via
 * process.exit) every tracked child is signalled synchronously (killNow); when SIGINT/SIGTERM/SIGHUP
 * arrives and nobody else listens for it, tracked children are stopped gracefully and the signal
 * is re-raised so the process still dies of it. When someone else listens (an app's own graceful
 * shutdown), they own shutdown: the exit hook and the supervisors' parent watch are the backstop.
 * Handlers are installed only while something is tracked.
 */
export interface Stoppable {
  /** Graceful stop (SIGTERM, wait, SIGKILL). */
  stop(): Promise<void>;
  /** Synchronous best effort, for the `exit` event: signal and return. */
  killNow(): void;
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** Upper bound on a graceful stop from a signal before the signal is re-raised anyway. */
const SIGNAL_STOP_DEADLINE_MS = 20_000;

const tracked = new Set<Stoppable>();
let shuttingDown = false;

/** Tracks `item` until the returned function is called. */
export function track(item: Stoppable): () => void {
  tracked.add(item);
  if (tracked.size === 1) install();
  return () => {
    if (tracked.delete(item) && tracked.size === 0) uninstall();
  };
}

function onExit(): void {
  for (const item of tracked) {
    try {
      item.killNow();
    } catch {
      // Exiting anyway.
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1 || shuttingDown) return;
  shuttingDown = true;
  const items = [...tracked];
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, SIGNAL_STOP_DEADLINE_MS).unref());
  void Promise.race([Promise.allSettled(items.map((item) => item.stop())), deadline]).then(() => {
    onExit();
    uninstall();
    process.kill(process.pid, signal);
  });
}

function install(): void {
  process.on('exit', onExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  process.removeListener('exit', onExit);
  for (const signal of SIGNALS) process.removeListener(signal, onSignal);
}
