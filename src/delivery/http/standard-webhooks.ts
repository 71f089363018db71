import { createHash, createHmac } from 'node:crypto';

/** The Standard Webhooks headers (https://www.standardwebhooks.com), lowercase as the spec writes them. */
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

/**
 * `webhook-id` of a task: stable per event and destination, so across retries, redrives and
 * replays (receivers de-duplicate on it), and a valid header value whatever the messageId holds.
 * 128 bits of SHA-256 over the task id (`sourceId:messageId:destinationId`).
 */
export function webhookIdFor(taskId: string): string {
  return `msg_${createHash('sha256').update(taskId, 'utf8').digest('hex').slice(0, 32)}`;
}

/**
 * Which secrets sign a request, given the time: the current one, and the previous one while the
 * rotation overlap lasts (from `rotatedAtMs`, for `overlapMs`). Pure; generic over what a secret is.
 */
export function signingSecrets<S>(options: {
  current: S | undefined;
  previous: { secret: S; rotatedAtMs: number } | undefined;
  nowMs: number;
  overlapMs: number;
}): S[] {
  const { current, previous, nowMs, overlapMs } = options;
  if (current === undefined) return [];
  const inOverlap = previous !== undefined && nowMs < previous.rotatedAtMs + overlapMs;
  return inOverlap ? [current, previous.secret] : [current];
}

/**
 * `webhook-signature`: for each key, `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` over
 * the exact body bytes, space-separated (the spec's form for several signatures during a rotation).
 * Equal keys sign once.
 */
export function standardWebhooksSignature(options: {
  keys: Buffer[];
  id: string;
  timestampS: number;
  /** The exact body; a string is taken as UTF-8. */
  body: string | Buffer;
}): string {
  const { id, timestampS, body } = options;
  const keys = options.keys.filter((key, i) => options.keys.findIndex((k) => k.equals(key)) === i);
  return keys
    .map((key) => {
      const hmac = createHmac('sha256', key).update(`${id}.${timestampS}.`, 'utf8');
      const mac = (typeof body === 'string' ? hmac.update(body, 'utf8') : hmac.update(body)).digest('base64');
      return `v1,${mac}`;
    })
    .join(' ');
}
