import { randomUUID } from 'node:crypto';
import type { TrackingType } from '../events/types';
import { Batcher } from './batcher';
import { ClientClosedError, InvalidWriteKeyError, MessagesNotDeliveredError } from './errors';
import { connectHttpTransport } from './http-transport';
import { drain } from './drain';
import { connectKafkaTransport } from './kafka-transport';
import {
  rawMessage,
  type AliasMessage,
  type GroupMessage,
  type IdentifyMessage,
  type PageMessage,
  type ScreenMessage,
  type TrackMessage,
} from './messages';
import {
  resolveCommon,
  resolveHttpEndpoint,
  resolveKafkaConnection,
  type AnalyticsOptions,
  type CommonOptions,
  type ResolvedCommon,
} from './options';
import { MAX_BATCH_BYTES, type Transport } from './transport';

/** close(): pause before a batch that failed retriably is sent again (within closeTimeoutMs). */
const CLOSE_RETRY_DELAY_MS = 1_000;

/** The queue bound to one transport (its payload type hidden from Analytics). */
interface Pipeline {
  readonly size: number;
  /** Calls in the batch in flight. */
  readonly inFlight: number;
  /** Calls in flight past their ack timeout: they may still be written. */
  readonly unanswered: number;
  readonly dropped: number;
  /** Validates, encodes and queues one call; returns its messageId. */
  enqueue(type: TrackingType, message: unknown): string;
  flush(): Promise<void>;
  /** Resolves once no batch is in flight. */
  idle(): Promise<void>;
  waitForRoom(): Promise<void>;
  /** No call will be enqueued any more (close() began). */
  closing(): void;
  /** Stops sending and closes the transport (a batch still in flight is not waited for). */
  shutdown(): Promise<void>;
}

function pipeline<P>(transport: Transport<P>, common: ResolvedCommon): Pipeline {
  const batcher = new Batcher<P>({
    send: (batch) => transport.send(batch),
    flushAt: common.flushAt,
    flushAfterMs: common.flushAfterMs,
    maxQueuedMessages: common.maxQueuedMessages,
    maxBatchBytes: MAX_BATCH_BYTES,
    batchOverheadBytes: transport.batchOverheadBytes,
    itemOverheadBytes: transport.itemOverheadBytes,
    ...(transport.ackTimeout && { ackTimeout: transport.ackTimeout }),
    clock: common.clock,
    scheduler: common.scheduler,
    logger: common.logger,
    onError: (err, { messages, willRetry, messageIds }) =>
      common.onError(err, { willRetry, count: messages, messageIds }),
  });
  return {
    get size() {
      return batcher.size;
    },
    get inFlight() {
      return batcher.inFlightCount;
    },
    get unanswered() {
      return batcher.unansweredCount;
    },
    get dropped() {
      return batcher.dropped;
    },
    enqueue(type, message) {
      batcher.assertRoom(); // before spending time on encoding
      const prepared = transport.prepare(rawMessage(type, message, randomUUID));
      batcher.enqueue(prepared.payload, prepared.bytes, prepared.messageId);
      return prepared.messageId;
    },
    flush: () => batcher.flush(),
    idle: () => batcher.idle(),
    waitForRoom: () => batcher.waitForRoom(),
    closing: () => transport.closing?.(),
    async shutdown() {
      batcher.stop();
      await transport.close();
    },
  };
}

/**
 * Hookline's TypeScript client library (`hookline/producer`). Calls are checked and encoded at
 * once (errors are thrown synchronously, typed), queued in memory, and sent in the background in
 * batches; see README.md in this folder.
 *
 *   const analytics = await Analytics.connect(process.env.HOOKLINE_WRITE_KEY!, { flushAt: 50 });
 *   analytics.track({ userId: 'u1', event: 'Order Completed', properties: { total: 12.5 } });
 *   await analytics.close(); // on shutdown: sends what is queued
 */
export class Analytics {
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly pipeline: Pipeline,
    private readonly common: ResolvedCommon,
    /** The write key's source (Kafka transport); undefined with transport 'http'. */
    readonly sourceId: string | undefined,
  ) {}

  /**
   * Connects and resolves the write key to its source. Rejects with InvalidWriteKeyError or
   * SourceDisabledError for a key the tracking API would refuse, ConfigError for bad options,
   * TopicNotFoundError; KafkaUnavailableError, RegistryUnavailableError, CatalogLagError or
   * TrackingApiError (retriable: try again later) when a dependency does not answer.
   */
  static async connect(writeKey: string, options: AnalyticsOptions = {}): Promise<Analytics> {
    if (typeof writeKey !== 'string' || writeKey === '')
      throw new InvalidWriteKeyError('a write key is required');
    const common = resolveCommon(options);
    if (options.transport === 'http') {
      return Analytics.over(
        await connectHttpTransport(writeKey, resolveHttpEndpoint(options), common),
        options,
        common,
      );
    }
    return Analytics.over(
      await connectKafkaTransport(writeKey, resolveKafkaConnection(options), common),
      options,
      common,
    );
  }

  /** @internal An Analytics over a given transport (tests, other transports). */
  static over<P>(
    transport: Transport<P>,
    options: CommonOptions = {},
    resolved = resolveCommon(options),
  ): Analytics {
    return new Analytics(pipeline(transport, resolved), resolved, transport.sourceId);
  }

  /** Who the user is, and their traits. */
  identify(message: IdentifyMessage): string {
    return this.call('identify', message);
  }

  /** Something the user did. */
  track(message: TrackMessage): string {
    return this.call('track', message);
  }

  /** A web page the user viewed. */
  page(message: PageMessage): string {
    return this.call('page', message);
  }

  /** A mobile screen the user viewed. */
  screen(message: ScreenMessage): string {
    return this.call('screen', message);
  }

  /** The user belongs to a group (company, account, ...). */
  group(message: GroupMessage): string {
    return this.call('group', message);
  }

  /** The user had another identity (`previousId`) before. */
  alias(message: AliasMessage): string {
    return this.call('alias', message);
  }

  /** Calls held in memory: queued, or sent and not yet acknowledged. */
  get queued(): number {
    return this.pipeline.size;
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  /**
   * Sends everything queued now. Resolves once all of it is acknowledged (Kafka acks=all, or the
   * tracking API's 200); rejects with the failure of a batch otherwise (a retriable failure
   * leaves its calls queued, to be retried by the next flush).
   */
  flush(): Promise<void> {
    return this.pipeline.flush();
  }

  /**
   * Resolves once a call can be queued again: at once when the queue has room, else as soon as a
   * batch is acknowledged (or dropped) and frees some, or once the client has closed. The way to
   * answer QueueFullError without waiting for everything queued to be sent, as `flush()` does.
   * Room is not reserved (another caller may take it first), so make the call again in a loop:
   *
   *   for (;;) {
   *     try { analytics.track(call); break; } catch (err) {
   *       if (!(err instanceof QueueFullError)) throw err;
   *       await analytics.waitForRoom();
   *     }
   *   }
   */
  waitForRoom(): Promise<void> {
    return this.pipeline.waitForRoom();
  }

  /**
   * Refuses further calls (ClientClosedError), sends everything queued, then disconnects.
   * Every batch is tried: one that fails for good is dropped and the next is sent; one that fails
   * retriably is sent again, until `closeTimeoutMs` has passed. Resolves once all of it is
   * acknowledged; rejects with MessagesNotDeliveredError (with the count) when some of it could
   * not be. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const { clock, scheduler, closeTimeoutMs, logger } = this.common;
    const droppedBefore = this.pipeline.dropped;
    this.pipeline.closing();
    const { timedOut, cause } = await drain(this.pipeline, {
      clock,
      scheduler,
      timeoutMs: closeTimeoutMs,
      retryDelayMs: CLOSE_RETRY_DELAY_MS,
    });
    // Counted before the transport closes: a batch answered later is not counted twice.
    const undelivered = this.pipeline.size + this.pipeline.dropped - droppedBefore;
    // Sent and not answered: not known to be delivered, and may still be written.
    const inDoubt = this.pipeline.inFlight;
    await this.pipeline.shutdown();
    logger.info({ undelivered, inDoubt, timedOut }, 'closed');
    if (undelivered > 0) throw new MessagesNotDeliveredError(undelivered, cause, inDoubt);
  }

  private call(type: TrackingType, message: unknown): string {
    if (this.closing) throw new ClientClosedError();
    const messageId = this.pipeline.enqueue(type, message);
    this.common.logger.debug({ type, messageId, queued: this.pipeline.size }, 'queued');
    return messageId;
  }
}
