import { Analytics, type HTTPFetchFn } from '@segment/analytics-node';
import { parseJson, type JsonObject } from '../../../src/events/json';
import { clientCalls, type ClientRun, type WireRequest } from './calls';

export interface AnalyticsNodeRunOptions {
  /** Hookline's base URL; the client posts to `<host>/v1/batch`. */
  host: string;
  writeKey: string;
  runId: string;
  /** Drop the client's Basic auth header, leaving only `writeKey` in the body. */
  withoutAuthorizationHeader?: boolean;
  /** The client's retries of a failed batch (5xx, network error); 1 by default. */
  maxRetries?: number;
}

/**
 * Sends clientCalls(runId) through the real @segment/analytics-node client, then closes it
 * (which flushes). The client's own fetch goes through a recorder, so the caller sees the
 * requests exactly as they were on the wire. Rejects when the client reports an error.
 */
export async function sendWithAnalyticsNode(options: AnalyticsNodeRunOptions): Promise<ClientRun> {
  const startedMs = Date.now();
  const requests: WireRequest[] = [];
  const recordingFetch: HTTPFetchFn = async (url, init) => {
    const headers = { ...init.headers };
    if (options.withoutAuthorizationHeader) delete headers.Authorization;
    const [authUser = '', authPassword = ''] = basicAuth(headers.Authorization);
    const res = await fetch(url, { method: init.method, headers, body: init.body, signal: init.signal });
    requests.push({
      method: init.method,
      path: new URL(url).pathname,
      authUser,
      authPassword,
      contentType: headers['Content-Type'] ?? '',
      status: res.status,
      body: parseJson(init.body) as JsonObject,
    });
    return res;
  };

  const analytics = new Analytics({
    writeKey: options.writeKey,
    host: options.host,
    path: '/v1/batch',
    flushAt: 50,
    flushInterval: 60_000,
    maxRetries: options.maxRetries ?? 1,
    httpClient: recordingFetch,
  });
  const errors: string[] = [];
  analytics.on('error', (err) => errors.push(JSON.stringify(err)));

  for (const call of clientCalls(options.runId, { screen: true })) {
    const identity = call.userId !== undefined ? { userId: call.userId } : { anonymousId: call.anonymousId! };
    switch (call.type) {
      case 'identify':
        analytics.identify({ ...identity, traits: call.traits });
        break;
      case 'track':
        analytics.track({ ...identity, event: call.event!, properties: call.properties });
        break;
      case 'page':
        analytics.page({ ...identity, name: call.name, properties: call.properties });
        break;
      case 'screen':
        analytics.screen({ ...identity, name: call.name, properties: call.properties });
        break;
      case 'group':
        analytics.group({ ...identity, groupId: call.groupId!, traits: call.traits });
        break;
      case 'alias':
        analytics.alias({ userId: call.userId!, previousId: call.previousId! });
        break;
    }
  }
  await analytics.closeAndFlush({ timeout: 20_000 });
  if (errors.length > 0) {
    throw new Error(
      `analytics-node reported errors: ${errors.join('; ')}\nrequests: ${JSON.stringify(requests)}`,
    );
  }
  return { runId: options.runId, requests, startedMs, endedMs: Date.now() };
}

function basicAuth(header: string | undefined): string[] {
  if (!header?.startsWith('Basic ')) return [];
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? [decoded] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}
