import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../core/clock';
import type { Logger } from '../../observability/logger';
import type { HttpResult } from '../http/classify';
import { CircuitBreaker, DEFAULT_BREAKER_POLICY, type BreakerPolicy, type CircuitState } from './breaker';

/** A URL's circuit as the admin API shows it. */
export interface CircuitView {
  state: CircuitState;
  /** Absent for a URL this process never called. */
  since?: string;
  lastError?: string;
}

/** Results that say the endpoint is down (any other answer shows it is up). */
const FAILURES: ReadonlySet<HttpResult> = new Set<HttpResult>(['timeout', 'connection', 'http_5xx']);

export function countsAsFailure(result: HttpResult): boolean {
  return FAILURES.has(result);
}

interface Entry {
  breaker: CircuitBreaker;
  destinationId: string;
  urlIndex: number;
  urlHost: string;
  /** The state last logged. */
  known: CircuitState;
}

/**
 * The circuit breakers of this process, one per destination URL (keyed by the URL itself, so
 * replacing a destination's URLs starts them afresh). Exports
 * `hookline_destination_circuit_open{destination_id, url_index}` and logs every transition.
 * State is per process: each worker replica judges the endpoints it calls.
 */
export class CircuitRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly policy: BreakerPolicy;

  constructor(
    private readonly options: { clock: Clock; logger: Logger; metrics: Registry; policy?: BreakerPolicy },
  ) {
    this.policy = options.policy ?? DEFAULT_BREAKER_POLICY;
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
    if (transition) this.transition(entry, transition.to);
  }

  /** The circuit of each of a destination's URLs; closed for a URL this process never called. */
  views(destinationId: string, urls: readonly string[]): CircuitView[] {
    const nowMs = this.options.clock.now();
    return urls.map((url) => {
      const entry = this.entries.get(key(destinationId, url));
      if (!entry) return { state: 'closed' };
      const { state, sinceMs, lastError } = entry.breaker.view(nowMs);
      return { state, since: new Date(sinceMs).toISOString(), ...(lastError && { lastError }) };
    });
  }

  private entry(destinationId: string, urlIndex: number, url: string): Entry {
    const k = key(destinationId, url);
    let entry = this.entries.get(k);
    if (!entry) {
      entry = {
        breaker: new CircuitBreaker(this.policy, this.options.clock.now()),
        destinationId,
        urlIndex,
        urlHost: hostOf(url),
        known: 'closed',
      };
      this.entries.set(k, entry);
    }
    entry.urlIndex = urlIndex;
    return entry;
  }

  private transition(entry: Entry, to: CircuitState): void {
    const from = entry.known;
    entry.known = to;
    const line = {
      destinationId: entry.destinationId,
      urlIndex: entry.urlIndex,
      urlHost: entry.urlHost,
      from,
      to,
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
