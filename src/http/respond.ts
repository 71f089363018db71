import type { IncomingMessage, ServerResponse } from 'node:http';

/** An error an HTTP handler throws to answer with a status and a JSON body `{ error, message }`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    /** Response headers beside the JSON body, e.g. `retry-after` on a 503. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * The client closed the connection before its request body was read: nobody is left to answer.
 * Counted with nginx's status 499 ("client closed request"), not as a server error.
 */
export class ClientClosedRequestError extends HttpError {
  constructor() {
    super(499, 'client_closed_request', 'the client closed the connection before sending the whole body');
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string, contentType: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Reads the request body up to `maxBytes`. Over the limit → 413 without reading the rest
 * into memory (the connection is closed afterwards). A client gone mid-body →
 * ClientClosedRequestError.
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new HttpError(
      413,
      'payload_too_large',
      `request body of ${declared} bytes exceeds the limit of ${maxBytes} bytes`,
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        throw new HttpError(413, 'payload_too_large', `request body exceeds the limit of ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    // The stream's only errors: the connection closed or reset before the body ended ("aborted").
    throw new ClientClosedRequestError();
  }
  return Buffer.concat(chunks, size);
}
