import { Pool } from 'undici';

/** Gives a request's socket slot back: the next request waiting for one starts. */
export type Release = () => void;

export interface DestinationPoolsOptions {
  /** Sockets per pool: a destination's requests in flight to one origin. */
  connections: number;
  /**
   * How long a request may wait for one of its pool's sockets before it is given up unsent
   * (`unsent`): a local shortage, never the receiver's time.
   */
  maxWaitMs: number;
  /** The options of every pool (timeouts, keep-alive, the one shared connector). */
  poolOptions: Pool.Options;
}

interface Waiter {
  start: (pool: Pool, release: Release) => void;
  timer: NodeJS.Timeout;
}

interface Entry {
  key: string;
  pool: Pool;
  /** Requests started on the pool and not yet released. */
  inFlight: number;
  /** Connected sockets (undici's `connect` minus `disconnect` events). */
  sockets: number;
  waiting: Waiter[];
}

/**
 * The webhook client's keep-alive socket pools: one per destination and origin, of `connections`
 * sockets each (HOOKLINE_DESTINATION_CONCURRENCY). A destination's requests never wait for sockets
 * another destination on the same receiver host holds, so a request's deadline can start when it
 * is handed to its pool: it measures the connection, the upload and the receiver's answer, not a
 * queue. The lanes keep a destination's requests in flight within the same bound, so a request
 * finds a socket at once; one that does not (a caller past the bound) waits here, not in undici,
 * its deadline not started, and is given up unsent after `maxWaitMs`.
 *
 * A pool lives while it has requests or connected sockets: once its last idle socket closed (the
 * keep-alive timeout) it is closed and forgotten, so the pools are those of the (destination,
 * origin) pairs called in the last few seconds, and their sockets at most the requests in flight
 * plus the idle ones of those seconds.
 */
export class DestinationPools {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: DestinationPoolsOptions) {}

  /** Pools open now (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Calls `start` with the pool of `destinationId` to `origin` once one of its sockets is free
   * (at once, when fewer than `connections` requests are in flight on it); `start` must call
   * `release` exactly once, when its request ended. Calls `unsent` instead when no socket freed
   * within `maxWaitMs`.
   */
  acquire(
    destinationId: string,
    origin: string,
    start: (pool: Pool, release: Release) => void,
    unsent: () => void,
  ): void {
    const entry = this.entryFor(destinationId, origin);
    if (entry.inFlight < this.options.connections) return this.begin(entry, start);
    const waiter: Waiter = {
      start,
      timer: setTimeout(() => {
        entry.waiting.splice(entry.waiting.indexOf(waiter), 1);
        this.closeIfIdle(entry);
        unsent();
      }, this.options.maxWaitMs),
    };
    entry.waiting.push(waiter);
  }

  /** Destroys every pool; requests waiting for a socket are dropped unstarted. */
  destroy(): void {
    for (const entry of this.entries.values()) {
      for (const w of entry.waiting) clearTimeout(w.timer);
      entry.waiting.length = 0;
      entry.pool.destroy().catch(() => undefined);
    }
    this.entries.clear();
  }

  private begin(entry: Entry, start: (pool: Pool, release: Release) => void): void {
    entry.inFlight++;
    let released = false;
    start(entry.pool, () => {
      if (released) return;
      released = true;
      entry.inFlight--;
      const next = entry.waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        this.begin(entry, next.start);
      } else this.closeIfIdle(entry);
    });
  }

  private entryFor(destinationId: string, origin: string): Entry {
    const key = `${destinationId} ${origin}`;
    const existing = this.entries.get(key);
    if (existing) return existing;
    const pool = new Pool(origin, this.options.poolOptions);
    const entry: Entry = { key, pool, inFlight: 0, sockets: 0, waiting: [] };
    pool
      .on('connect', () => entry.sockets++)
      .on('disconnect', () => {
        entry.sockets--;
        this.closeIfIdle(entry);
      })
      .on('connectionError', () => this.closeIfIdle(entry));
    this.entries.set(key, entry);
    return entry;
  }

  private closeIfIdle(entry: Entry): void {
    if (entry.sockets > 0 || entry.inFlight > 0 || entry.waiting.length > 0) return;
    if (this.entries.get(entry.key) !== entry) return;
    this.entries.delete(entry.key);
    entry.pool.close().catch(() => undefined);
  }
}
