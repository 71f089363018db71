import type { IncomingHttpHeaders } from 'node:http';
import type { CatalogView, Source } from '../records/catalog-model';
import { isJsonObject, type JsonObject, type JsonValue } from '../events/json';
import { HttpError } from '../http/respond';

/**
 * The write key, as Segment clients send it: HTTP Basic with the key as user name and an empty
 * password (analytics-go, analytics-node), or `writeKey` in the JSON body (some clients send only
 * that). The header wins when both are present.
 */
export function writeKeyFrom(headers: IncomingHttpHeaders, body: JsonObject): string | undefined {
  const auth = headers.authorization;
  if (auth && /^basic /i.test(auth)) {
    const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
    const user = decoded.includes(':') ? decoded.slice(0, decoded.indexOf(':')) : decoded;
    if (user) return user;
  }
  return typeof body.writeKey === 'string' && body.writeKey !== '' ? body.writeKey : undefined;
}

/** The enabled source of the key, or a 401 that says what is wrong (never echoing the key). */
export function authenticateSource(catalog: CatalogView, writeKey: string | undefined): Source {
  if (!writeKey) {
    throw new HttpError(
      401,
      'missing_write_key',
      'send the write key as HTTP Basic user name or as "writeKey" in the body',
    );
  }
  const source = catalog.sourceByWriteKey(writeKey);
  if (!source) throw new HttpError(401, 'invalid_write_key', 'the write key does not belong to any source');
  if (!source.enabled)
    throw new HttpError(401, 'source_disabled', 'the source of this write key is disabled');
  return source;
}

/**
 * An event as the ingest dead-letter topic keeps it: without the `writeKey` a client may send in
 * the body (the single-event routes take the whole body as the event). A write key is a
 * credential, stored nowhere else but as its hash; a rejected event must not carry it in the clear
 * for the topic's retention.
 */
export function withoutWriteKey(event: JsonValue): JsonValue {
  if (!isJsonObject(event) || !Object.hasOwn(event, 'writeKey')) return event;
  const kept: JsonObject = {};
  for (const key of Object.keys(event)) if (key !== 'writeKey') kept[key] = event[key]!;
  return kept;
}
