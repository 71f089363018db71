import { Analytics } from '@segment/analytics-node';

export interface LoadOptions {
  /** Hookline's base URL; the client posts to `<host>/v1/batch`. */
  host: string;
  writeKey: string;
  /** Prefix of every messageId of this run. */
  runId: string;
  events: number;
  ratePerSecond: number;
  /** How long the client may take to flush what is left once every event is enqueued. */
  flushTimeoutMs: number;
}

export interface LoadResult {
  /** messageIds the ingest API acknowledged (the client's callback without an error). */
  accepted: string[];
  /** messageIds the client gave up on, with its last error. */
  failed: { messageId: string; error: string }[];
  durationMs: number;
}

/** How often the pacing loop enqueues the events due by then. */
const TICK_MS = 50;

/**
 * Sends `events` track calls through the real @segment/analytics-node client at a steady rate,
 * then flushes it. The client retries 5xx and network errors with its own backoff (as it would
 * against Segment while the broker is down); each event's callback says whether it was accepted.
 */
export async function sendEvents(options: LoadOptions): Promise<LoadResult> {
  const startedMs = Date.now();
  const analytics = new Analytics({
    writeKey: options.writeKey,
    host: options.host,
    path: '/v1/batch',
    flushAt: 50,
    flushInterval: 200,
    maxRetries: 20,
    httpRequestTimeout: 15_000,
  });
  analytics.on('error', () => undefined); // reported per event through the callbacks
  const accepted: string[] = [];
  const failed: LoadResult['failed'] = [];

  for (let sent = 0; sent < options.events;) {
    const due = Math.min(
      options.events,
      Math.floor(((Date.now() - startedMs) / 1_000) * options.ratePerSecond),
    );
    for (; sent < due; sent++) {
      const messageId = `${options.runId}-${sent}`;
      analytics.track(
        { userId: `user-${sent % 200}`, event: 'Chaos Event', properties: { n: sent }, messageId },
        (err) => {
          if (err) failed.push({ messageId, error: String((err as Error).message ?? err) });
          else accepted.push(messageId);
        },
      );
    }
    await new Promise((r) => setTimeout(r, TICK_MS));
  }
  await analytics.closeAndFlush({ timeout: options.flushTimeoutMs });
  // closeAndFlush resolves at its timeout even with batches in flight: those count as failed.
  const known = new Set([...accepted, ...failed.map((f) => f.messageId)]);
  for (let i = 0; i < options.events; i++) {
    const messageId = `${options.runId}-${i}`;
    if (!known.has(messageId)) failed.push({ messageId, error: 'not flushed before the timeout' });
  }
  return { accepted, failed, durationMs: Date.now() - startedMs };
}
