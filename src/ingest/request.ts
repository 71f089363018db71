import type { IncomingMessage } from 'node:http';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { JsonTooDeepError } from '../events/depth';
import { isJsonObject, parseJsonText, type JsonObject } from '../events/json';
import type { JsonScan } from '../events/json-scan';
import { MAX_REQUEST_BYTES } from '../events/normalize';
import { HttpError, readBody } from '../http/respond';

const gunzipAsync = promisify(gunzip);

/**
 * Reads a tracking request's JSON object body: at most 500 KB (after gunzip, when the client
 * compresses). Whole-request problems become 4xx HttpErrors. `plain`: see `parseJsonText`.
 */
export async function readTrackingBody(
  req: IncomingMessage,
): Promise<{ body: JsonObject; plain: boolean; scan?: JsonScan }> {
  let body = await readBody(req, MAX_REQUEST_BYTES);
  const encoding = (req.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'gzip') {
    try {
      body = await gunzipAsync(body, { maxOutputLength: MAX_REQUEST_BYTES });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new HttpError(
          413,
          'payload_too_large',
          `decompressed body exceeds the limit of ${MAX_REQUEST_BYTES} bytes`,
        );
      }
      throw new HttpError(400, 'invalid_encoding', 'body is not valid gzip');
    }
  } else if (encoding !== '' && encoding !== 'identity') {
    throw new HttpError(
      415,
      'unsupported_encoding',
      `Content-Encoding ${encoding} is not supported (use gzip or none)`,
    );
  }
  let parsed;
  try {
    parsed = parseJsonText(body.toString('utf8'), { events: true });
  } catch (err) {
    if (err instanceof JsonTooDeepError) throw new HttpError(400, err.code, `body: ${err.message}`);
    throw new HttpError(400, 'invalid_json', `body is not valid JSON: ${(err as Error).message}`);
  }
  if (!isJsonObject(parsed.value)) throw new HttpError(400, 'invalid_body', 'body must be a JSON object');
  return { body: parsed.value, plain: parsed.plain, scan: parsed.scan };
}
