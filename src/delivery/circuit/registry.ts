import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../core/clock';
import type { Logger } from '../../observability/logger';
import type { CircuitGate } from '../failover';
import type { HttpResult } from '../http/classify';
import { circuitUrlHash, type CircuitRecord } from '../../records/circuit';
import { errorMessage } from '../../core/errors';
import { CircuitBreaker, DEFAULT_BREAKER_POLICY, type BreakerPolicy, type CircuitState } from './breaker';

/** Results that say the endpoint is down (any other answer shows it is up). */
const FAILURES: ReadonlySet<HttpResult> = new Set<HttpResult>(['timeout', 'connection', 'http_5xx']);

export function countsAsFailure(result: HttpResult): boolean {
  return FAILURES.has(result);
}

interface Entry {
  breaker: CircuitBreaker;
  destinationId: string;
  urlIndex: number;
  url: string;
  urlHost: string;
  /** The state last logged. */
  known: CircuitState;
}

/** Where workers share circuit states (CircuitBoard, on the `<prefix>.circuits` topic). */
export interface SharedCircuits {
  get(destinationId: string, urlIndex: number, url: string): CircuitRecord | undefined;
  publish(record: Omit<CircuitRecord, 'updatedAtMs'>): Promise<void>;
  onChange(listener: (record: CircuitRecord) => void): unknown;
}

export interface CircuitRegistryOptions {
  clock: Clock;
  logger: Logger;
  metrics: Registry;
  policy?: BreakerPolicy;
  /** Shares transitions with every other process; without it each process keeps its own. */
  board?: SharedCircuits;
  /** A URL whose circuit stays open this long (from its first trip, probes failing since) is disabled. */
  autoDisable?: {
    afterMs: number;
    /** The catalog write (the one 410 Gone uses). */
    disableWebhook: (destinationId: string, url: string, reason: string) => Promise<unknown>;
  };
}

/**
 * The circuit breakers of this process, one per destination URL (keyed by the URL itself, so
 * replacing a destination's URLs starts them afresh). Exports
 * `hookline_destination_circuit_open{destination_id, url_index}` and logs every transition.
 *
 * Across workers (with a board): each worker counts the outcomes of its own requests in its own
 * window, and publishes its breaker's opens and closes; an open published by any worker opens the
 * URL's breaker in every worker until the end of that cool-down (a worker that calls the URL for
 * the first time, or just restarted, starts from the published state), and a close published by
 * any worker (a probe succeeded) closes it everywhere. After the cool-down each worker lets its
 * own few probes through; the first outcome published settles it for all.
 */
export class CircuitRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly policy: BreakerPolicy;

  constructor(private readonly options: CircuitRegistryOptions) {
    this.policy = options.policy ?? DEFAULT_BREAKER_POLICY;
    options.board?.onChange((record) => this.adopt(record));
    const entries = this.entries;
    const clock = options.clock;
    new Gauge({
      name: 'hookline_destination_circuit_open',
      help: 'Circuit breaker of a destination URL: 1 open (calls skipped), 0 closed or half-open (probing).',
      labelNames: ['destination_id', 'url_index'],
      registers: [options.metrics],
      collect() {
        this.reset();
        for (const e of entries.values()) {
          const open = e.breaker.state(clock.now()) === 'open' ? 1 : 0;
          this.set({ destination_id: e.destinationId, url_index: String(e.urlIndex) }, open);
        }
      },
    });
  }

  /** May a request go to this URL now? A yes while half-open reserves a probe (see `record`). */
  /** The breakers of one destination's URLs, as failover consults them. */
  gate(destinationId: string): CircuitGate {
    return {
      allow: (urlIndex, url) => this.allow(destinationId, urlIndex, url),
      record: (urlIndex, url, result, error) => this.record(destinationId, urlIndex, url, result, error),
    };
  }

  allow(destinationId: string, urlIndex: number, url: string): boolean {
    const entry = this.entry(destinationId, urlIndex, url);
    const nowMs = this.options.clock.now();
    const state = entry.breaker.state(nowMs); // an open circuit turns half-open once cooled down
    if (state !== entry.known) this.transition(entry, state);
    return entry.breaker.allow(nowMs);
  }

  /** The outcome of a request `allow` let through. */
  record(destinationId: string, urlIndex: number, url: string, result: HttpResult, error?: string): void {
    const entry = this.entry(destinationId, urlIndex, url);
    const failed = countsAsFailure(result);
    const transition = entry.breaker.record(
      failed,
      this.options.clock.now(),
      failed ? (error ?? result) : undefined,
    );
    if (transition) {
      this.transition(entry, transition.to);
      this.publish(entry);
      if (transition.to === 'open') this.disableIfOpenTooLong(entry);
    }
  }

  /** Checked at each trip (a failed probe: at least every max cool-down while it stays open). */
  private disableIfOpenTooLong(entry: Entry): void {
    const { autoDisable, clock, logger } = this.options;
    const failingSinceMs = entry.breaker.failingSince;
    if (!autoDisable || failingSinceMs === undefined) return;
    if (clock.now() - failingSinceMs < autoDisable.afterMs) return;
    const { destinationId, urlIndex } = entry;
    autoDisable.disableWebhook(destinationId, entry.url, 'circuit_open').then(
      () =>
        logger.warn(
          { destinationId, urlIndex, failingSinceMs },
          'webhook URL disabled: circuit open too long',
        ),
      (err: unknown) =>
        logger.error({ destinationId, urlIndex, err: errorMessage(err) }, 'could not disable a webhook URL'),
    );
  }

  /** The state of a URL's breaker in this process (closed for a URL it never called). */
  state(destinationId: string, url: string): CircuitState {
    return this.entries.get(key(destinationId, url))?.breaker.state(this.options.clock.now()) ?? 'closed';
  }

  /** A state published by a worker (this one included: then it changes nothing). */
  private adopt(record: CircuitRecord): void {
    for (const entry of this.entries.values()) {
      if (entry.destinationId !== record.destinationId || entry.urlIndex !== record.urlIndex) continue;
      if (circuitUrlHash(entry.url) !== record.urlHash) continue;
      this.adoptInto(entry, record);
    }
  }

  private publish(entry: Entry): void {
    const { board } = this.options;
    const shared = entry.breaker.shared();
    if (!board || !shared) return;
    board
      .publish({
        ...shared,
        destinationId: entry.destinationId,
        urlIndex: entry.urlIndex,
        urlHash: circuitUrlHash(entry.url),
      })
      .catch((err: unknown) =>
        this.options.logger.warn(
          { destinationId: entry.destinationId, urlIndex: entry.urlIndex, err: errorMessage(err) },
          'circuit state not published (other processes learn of it at its next transition)',
        ),
      );
  }

  private entry(destinationId: string, urlIndex: number, url: string): Entry {
    const k = key(destinationId, url);
    let entry = this.entries.get(k);
    if (!entry) {
      entry = {
        breaker: new CircuitBreaker(this.policy, this.options.clock.now()),
        destinationId,
        urlIndex,
        url,
        urlHost: hostOf(url),
        known: 'closed',
      };
      this.entries.set(k, entry);
      // Start from what the other workers know: an open circuit stays open here too.
      const published = this.options.board?.get(destinationId, urlIndex, url);
      if (published) this.adoptInto(entry, published);
    }
    entry.urlIndex = urlIndex;
    return entry;
  }

  private adoptInto(entry: Entry, published: CircuitRecord): void {
    const transition = entry.breaker.adopt(published, this.options.clock.now());
    if (transition) this.transition(entry, transition.to, 'published');
  }

  /** Logs a transition; `cause` says when it was adopted from another worker's record. */
  private transition(entry: Entry, to: CircuitState, cause: 'outcomes' | 'published' = 'outcomes'): void {
    const from = entry.known;
    if (from === to) return;
    entry.known = to;
    const line = {
      destinationId: entry.destinationId,
      urlIndex: entry.urlIndex,
      urlHost: entry.urlHost,
      from,
      to,
      cause,
    };
    if (to === 'open') this.options.logger.warn(line, 'circuit.transition');
    else this.options.logger.info(line, 'circuit.transition');
  }
}

function key(destinationId: string, url: string): string {
  return `${destinationId}\u0000${url}`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '<invalid url>';
  }
}
