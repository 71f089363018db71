import {
  Kafka,
  KafkaJSConnectionError,
  KafkaJSError,
  logLevel,
  type LogEntry,
  type ProducerConfig,
  type SASLOptions,
} from './kafkajs';
import type { Config } from '../config/config';
import { retryTransient, unlessStopped } from '../core/backoff';
import type { Logger } from '../observability/logger';
import type { BrokerOutageWatch } from './outage';
import { hooklinePartitioner } from './partitioner';
import {
  applyKafkajsFixes,
  kafkajsLogLevel,
  retriableProtocolMessages,
  routineProtocolMessages,
} from './kafkajs-fork';

export interface KafkaClientOptions {
  brokers: string[];
  clientId: string;
  ssl?: boolean;
  sasl?: Config['kafka']['sasl'];
  logger: Logger;
  /**
   * 'hookline-process': a Hookline process, which applies the fork of kafkajs (kafkajs-fork/) and
   * fails here, with a KafkajsPatchError, when a patch does not apply. 'none': the producer library,
   * inside someone else's application, whose kafkajs it leaves exactly as it is.
   */
  patches: 'hookline-process' | 'none';
  /** Told every kafkajs log line, to notice brokers going away (start-up uses it, see outage.ts). */
  outage?: Pick<BrokerOutageWatch, 'observe'>;
}

let protocolMessages: { retriable: ReadonlySet<string>; routine: ReadonlySet<string> } | undefined;

/**
 * A kafkajs client whose logs go through pino (as `component: kafkajs`); with `patches:
 * 'hookline-process'`, on kafkajs with Hookline's fork applied (applyKafkajsFixes).
 * One per process (src/compose/), with one member of each consumer group: kafkajs keeps a group's
 * committed offsets in the client, shared by its consumers, and a member whose new assignment
 * lacks a topic deletes that topic's there under another member of the client still reading it
 * (a TypeError inside kafkajs's OffsetManager.resolveOffsets). Members of one group side by side
 * need a client each, as processes have.
 */
export function createKafka(options: KafkaClientOptions): Kafka {
  if (options.patches === 'hookline-process') applyKafkajsFixes();
  const log = options.logger.child({ component: 'kafkajs' });
  const { retriable, routine } = (protocolMessages ??= {
    retriable: retriableProtocolMessages(),
    routine: routineProtocolMessages(),
  });
  return new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    ssl: options.ssl,
    sasl: options.sasl as SASLOptions | undefined,
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ namespace, level, log: entry }: LogEntry) => {
        const { message, ...rest } = entry;
        options.outage?.observe({ namespace, level, message });
        // kafkajs logs every failed response at error level, also those it retries (see log-levels.ts).
        log[kafkajsLogLevel(level, entry, retriable, routine)]({ namespace, ...rest }, message);
      },
    // Waits between kafkajs's tries grow to 1 s at most (its default: 30 s). A consumer that gave
    // up while the broker was away restarts after its last wait: 15–25 s after the broker was back
    // with the default, long enough for the group to hand its partitions (and their work done but
    // not yet committed) to the others; now within about 1 s, with the others.
    retry: { initialRetryTime: 100, retries: 8, maxRetryTime: 1_000 },
  });
}

/**
 * Settings of every producer Hookline creates: idempotent (no duplicates or reordering from
 * retries), acks=all on each send, the murmur2 partitioner (the Java client's, so keys land
 * on the same partitions whatever client wrote them), and unlimited retries as idempotence
 * requires; callers bound their own wait (HOOKLINE_KAFKA_ACK_TIMEOUT). Tries are at most 1 s
 * apart: a send begun during a broker outage lands within about a second of its return; with
 * longer waits, a worker's hand-offs land seconds after it, the work they finish is committed only
 * then, and a worker killed meanwhile has it all delivered again.
 */
export function producerSettings(): ProducerConfig {
  return {
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: hooklinePartitioner,
    retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 100, maxRetryTime: 1_000 },
  };
}

/** kafkajs errors it marks retriable, e.g. NOT_LEADER_FOR_PARTITION while a new partition's leader settles. */
export const isRetriableKafkaError = (err: unknown): boolean => err instanceof KafkaJSError && err.retriable;

/** The brokers could not be reached (refused, reset, timed out), kafkajs's own retries included. */
export const isUnreachableBrokerError = (err: unknown): boolean => {
  for (let e: unknown = err; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    if (e instanceof KafkaJSConnectionError) return true;
  }
  return false;
};

/**
 * Connects a client, waiting out brokers that are not reachable yet (a process starting while the
 * broker restarts) for about a minute, instead of failing start-up after kafkajs's few seconds.
 */
export async function connectWhenReachable(
  client: { connect(): Promise<void> },
  logger: Logger,
  what: string,
  /** Aborted when the process is asked to stop meanwhile: rejects at once with a StoppedError. */
  signal?: AbortSignal,
): Promise<void> {
  await retryTransient(() => unlessStopped(client.connect(), `connecting the ${what}`, signal), {
    isRunning: () => true,
    signal,
    isRetriable: isUnreachableBrokerError,
    maxAttempts: 15, // waits of 0.2 s doubling to 5 s: about 55 s in all
    logger,
    context: { connecting: what },
  });
}
