import { ADMIN_TOKEN, type TestApp } from './app';

/** Creates a source and returns its id and write key. */
export async function createSource(
  t: TestApp,
  name = 'test source',
): Promise<{ id: string; writeKey: string }> {
  const res = await t.admin<{ id: string; writeKey: string }>('POST', '/api/v1/sources', {
    name,
    enabled: true,
  });
  if (res.status !== 201)
    throw new Error(`creating a source failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface WebhookSpec {
  url: string;
  headers?: Record<string, string>;
}

/** Creates an enabled Webhooks destination and returns its id. */
export async function createDestination(
  t: TestApp,
  options: { sourceId: string; webhooks: WebhookSpec[]; sharedSecret?: string; name?: string },
): Promise<string> {
  const res = await t.admin<{ id: string }>('POST', '/api/v1/destinations', {
    sourceId: options.sourceId,
    name: options.name ?? 'test destination',
    enabled: true,
    settings: {
      webhooks: options.webhooks,
      ...(options.sharedSecret !== undefined && { sharedSecret: options.sharedSecret }),
    },
  });
  if (res.status !== 201)
    throw new Error(`creating a destination failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Sends one tracking call (or a batch) with the write key as Basic auth; returns status and JSON. */
export async function sendTracking(
  t: TestApp,
  writeKey: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${t.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** An admin call that may send If-Match, and returns the answer's ETag too. */
export async function conditionalAdmin(
  t: TestApp,
  method: string,
  path: string,
  options: { body?: unknown; ifMatch?: string } = {},
): Promise<{ status: number; etag: string | null; body: Record<string, unknown> }> {
  const res = await fetch(`${t.adminUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      'content-type': 'application/json',
      ...(options.ifMatch !== undefined && { 'if-match': options.ifMatch }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return {
    status: res.status,
    etag: res.headers.get('etag'),
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
  };
}
