import {
  KafkaJSConnectionError,
  KafkaJSError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSSASLAuthenticationError,
} from './kafkajs';
import { systemClock, type Clock } from '../core/clock';
import { HooklineError } from '../core/errors';
import { brokerGoneLog, type KafkajsLogLine } from './kafkajs-fork/broker-gone';

/**
 * Remembers when this process last saw a broker go away (fed kafkajs's log lines, see client.ts and
 * kafkajs-fork/broker-gone.ts).
 * Start-up uses it to tell a failure caused by a broker outage, whatever error kafkajs surfaced for it
 * (seen: a TypeError reading the metadata it could not fetch), from one that will not pass.
 */
export class BrokerOutageWatch {
  private lastSeenMs: number | undefined;

  constructor(private readonly clock: Clock = systemClock) {}

  /** A kafkajs log line. */
  observe(line: KafkajsLogLine): void {
    if (brokerGoneLog(line)) this.lastSeenMs = this.clock.now();
  }

  /** True when a broker was seen going away at or after `sinceMs`. */
  seenSince(sinceMs: number): boolean {
    return this.lastSeenMs !== undefined && this.lastSeenMs >= sinceMs;
  }
}

/** The error and its causes, outermost first. */
function* chain(err: unknown): Generator<unknown> {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 10; depth++) {
    yield e;
    e = e instanceof Error ? (e as { cause?: unknown }).cause : undefined;
  }
}

/** Failures no wait cures: bad credentials, invalid configuration, Hookline errors marked final. */
export function isPermanentStartError(err: unknown): boolean {
  for (const e of chain(err)) {
    if (e instanceof KafkaJSSASLAuthenticationError) return true;
    if (e instanceof HooklineError && !e.retriable) return true;
  }
  return false;
}

/**
 * Failures that pass when the brokers are back: a connection error, kafkajs's retries exhausted on
 * one, any kafkajs error it marks retriable (a leader or coordinator not there yet), a Hookline
 * error marked retriable.
 */
export function isTransientStartError(err: unknown): boolean {
  if (isPermanentStartError(err)) return false;
  for (const e of chain(err)) {
    if (e instanceof KafkaJSConnectionError || e instanceof KafkaJSNumberOfRetriesExceeded) return true;
    if (e instanceof KafkaJSError && e.retriable) return true;
    if (e instanceof HooklineError && e.retriable) return true;
  }
  return false;
}
