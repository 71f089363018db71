/**
 * The tracking API's admission queue: at most `concurrency` requests are handled at once
 * (reading the body, normalising, waiting for Kafka); up to `queue` more wait for a slot, each
 * for at most `queueTimeoutMs`. Anything beyond is refused at once, so under a burst a client gets
 * a quick 503 (which Segment clients retry) instead of a request that hangs until it times out.
 */
export interface IngestAdmissionLimits {
  /** Requests handled at once (HOOKLINE_INGEST_CONCURRENCY). */
  concurrency: number;
  /** Requests waiting for a slot; one more is refused at once (HOOKLINE_INGEST_QUEUE). */
  queue: number;
  /** Longest wait for a slot, from arrival; one still waiting then is refused (HOOKLINE_INGEST_QUEUE_TIMEOUT). */
  queueTimeoutMs: number;
}

export type AdmissionDecision = 'run' | 'wait' | 'refuse';

/**
 * What a new request does, given what runs and waits now and how long it already waited before
 * its handler ran (a busy event loop). First come, first served; a request that already used up
 * the queue timeout does not queue.
 */
export function admissionDecision(
  state: { running: number; waiting: number },
  limits: IngestAdmissionLimits,
  waitedMs = 0,
): AdmissionDecision {
  if (state.running < limits.concurrency && state.waiting === 0) return 'run';
  if (state.waiting < limits.queue && waitedMs < limits.queueTimeoutMs) return 'wait';
  return 'refuse';
}

export type RefusalReason = 'queue_full' | 'queue_timeout';

export type Admission =
  | { admitted: true; /** Call exactly once when the request is done. */ release(): void }
  | { admitted: false; reason: RefusalReason };

/** Timers, injected so tests control the queue timeout. */
export interface AdmissionTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemTimers: AdmissionTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Waiter {
  admit(admission: Admission): void;
  timer: unknown;
}

export class IngestAdmission {
  private running = 0;
  private readonly waiters: Waiter[] = [];
  private readonly timers: AdmissionTimers;

  constructor(private readonly options: { limits: IngestAdmissionLimits; timers?: AdmissionTimers }) {
    this.timers = options.timers ?? systemTimers;
  }

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiters.length;
  }

  /**
   * Resolves when the request may run, or is refused (at once when the queue is full). `waitedMs`:
   * how long it waited before asking, which counts against the queue timeout.
   */
  enter(waitedMs = 0): Promise<Admission> {
    const { limits } = this.options;
    const state = { running: this.running, waiting: this.waiters.length };
    const decision = admissionDecision(state, limits, waitedMs);
    if (decision === 'run') return Promise.resolve(this.admit());
    if (decision === 'refuse') {
      const reason = state.waiting < limits.queue ? 'queue_timeout' : 'queue_full';
      return Promise.resolve({ admitted: false, reason });
    }
    return new Promise<Admission>((resolve) => {
      const waiter: Waiter = {
        admit: resolve,
        timer: this.timers.setTimeout(() => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          resolve({ admitted: false, reason: 'queue_timeout' });
        }, limits.queueTimeoutMs - waitedMs),
      };
      this.waiters.push(waiter);
    });
  }

  private admit(): Admission {
    this.running++;
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        this.running--;
        this.next();
      },
    };
  }

  private next(): void {
    while (this.running < this.options.limits.concurrency && this.waiters.length > 0) {
      const waiter = this.waiters.shift()!;
      this.timers.clearTimeout(waiter.timer);
      waiter.admit(this.admit());
    }
  }
}
