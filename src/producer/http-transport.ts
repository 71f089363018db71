import { defaultUserAgent } from '../http/user-agent';
import { errorMessage } from '../core/errors';
import { isJsonObject, stringifyJson, type JsonValue } from '../events/json';
import { EventsRejectedError, InvalidWriteKeyError, SourceDisabledError, TrackingApiError } from './errors';
import { normalizeCall } from './messages';
import { redactedUrl, type ResolvedCommon } from './options';
import type { Transport } from './transport';

export interface HttpTransportConfig {
  /** `<endpoint>/v1/batch`. */
  batchUrl: string;
  requestTimeoutMs: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

const envelope = (items: string, sentAt: string) => `{"batch":[${items}],"sentAt":"${sentAt}"}`;

/**
 * The HTTP transport: batches go to a Hookline tracking API as `POST <endpoint>/v1/batch`, the
 * write key as HTTP Basic user name, exactly as Segment's libraries send them. Each call is stamped
 * with the time it was made (`timestamp`, when absent) and each batch with `sentAt`, so the API
 * corrects this machine's clock skew. Connecting sends an empty batch: a bad key fails at once.
 */
export async function connectHttpTransport(
  writeKey: string,
  config: HttpTransportConfig,
  common: ResolvedCommon,
): Promise<Transport<string>> {
  const { clock, logger, onError } = common;
  const doFetch = config.fetch ?? fetch;
  const headers = {
    authorization: `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`,
    'content-type': 'application/json',
    'user-agent': defaultUserAgent().replace('Hookline/', 'hookline-producer/'),
  };
  const iso = () => new Date(clock.now()).toISOString();
  const shownUrl = redactedUrl(config.batchUrl);

  const post = async (items: string): Promise<void> => {
    let status: number;
    let text: string;
    try {
      const res = await doFetch(config.batchUrl, {
        method: 'POST',
        headers,
        body: envelope(items, iso()),
        signal: AbortSignal.timeout(config.requestTimeoutMs),
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      throw new TrackingApiError('unreachable', `${shownUrl}: ${errorMessage(err)}`, undefined, {
        cause: err,
      });
    }
    const body = parseAnswer(text);
    if (status < 200 || status > 299) throw answerError(status, body);
    const rejected = body.rejected;
    if (Array.isArray(rejected) && rejected.length > 0) {
      const err = new EventsRejectedError(rejected.filter(isJsonObject).map(rejectedItem));
      logger.warn({ rejected: err.rejected }, 'tracking API refused events');
      // The batch was accepted: a throwing callback must not make it count as failed.
      try {
        onError(err, {
          willRetry: false,
          count: err.rejected.length,
          messageIds: err.rejected.flatMap((r) => (r.messageId === undefined ? [] : [r.messageId])),
        });
      } catch (callbackErr) {
        logger.error({ err: errorMessage(callbackErr) }, 'onError callback threw');
      }
    }
  };

  await post('');
  logger.info({ url: shownUrl }, 'tracking API accepted the write key');
  return {
    name: 'http',
    sourceId: undefined,
    batchOverheadBytes: Buffer.byteLength(envelope('', iso())),
    itemOverheadBytes: 1, // the comma
    prepare(raw) {
      const stamped = raw.timestamp === undefined ? { ...raw, timestamp: iso() } : raw;
      normalizeCall(stamped, { sourceId: '', receivedAtMs: clock.now() }); // the API's checks, here
      const text = stringifyJson(stamped);
      return { payload: text, bytes: Buffer.byteLength(text), messageId: stamped.messageId };
    },
    send: (batch) => post(batch.join(',')),
    close: async () => {},
  };
}

function parseAnswer(text: string): Record<string, JsonValue> {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** The API's `{ error, message }` answer as a typed error. */
function answerError(status: number, body: Record<string, JsonValue>): Error {
  const code = typeof body.error === 'string' ? body.error : `http_${status}`;
  const message =
    typeof body.message === 'string' ? body.message : `the tracking API answered HTTP ${status}`;
  if (status === 401 && code === 'source_disabled') return new SourceDisabledError(undefined);
  if (status === 401) return new InvalidWriteKeyError(message);
  return new TrackingApiError(code, message, status);
}

function rejectedItem(item: Record<string, JsonValue>) {
  return {
    ...(typeof item.messageId === 'string' && { messageId: item.messageId }),
    code: String(item.code),
    reason: String(item.reason),
  };
}
