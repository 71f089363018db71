import { randomBytes } from 'node:crypto';
import type { HooklineEvent } from '../../../src/events/types';
import { startTestApp, type TestApp } from '../app';
import { eventually } from '../eventually';
import { readStoredEvents, type StoredEvents, type StoredRecord } from './stored-events';

export interface Source {
  id: string;
  writeKey: string;
}

export interface PostOptions {
  /** Basic auth user; null sends no Authorization header. Default: the harness source's key. */
  writeKey?: string | null;
  headers?: Record<string, string>;
}

export interface TrackingResponse {
  status: number;
  contentType: string | null;
  /** The parsed JSON answer; tests read into it freely. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * An ingest-only test app, a reader of its output topics and one source, started in beforeAll
 * and stopped in afterAll of the calling test file. Fields are set once beforeAll ran.
 */
export class TrackingHarness {
  testApp!: TestApp;
  stored!: StoredEvents;
  source!: Source;

  async createSource(name: string): Promise<Source> {
    const res = await this.testApp.admin<Source>('POST', '/api/v1/sources', { name });
    expect(res.status).toBe(201);
    return res.body;
  }

  /** POSTs to the tracking API; objects are sent as JSON, strings and buffers as they are. */
  async post(
    path: string,
    body: object | string | Buffer,
    options: PostOptions = {},
  ): Promise<TrackingResponse> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    const writeKey = options.writeKey === undefined ? this.source.writeKey : options.writeKey;
    if (writeKey !== null) headers.authorization = basicAuth(writeKey);
    const res = await fetch(`${this.testApp.baseUrl}${path}`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      contentType: res.headers.get('content-type'),
      body: text ? JSON.parse(text) : undefined,
    };
  }

  /** Exactly `count` stored events keyed by ids starting with `runId`, once the reader caught up. */
  async storedOfRun(runId: string, count: number): Promise<StoredRecord<HooklineEvent>[]> {
    const ours = () => this.stored.events.filter((r) => (r.key ?? '').startsWith(runId));
    await eventually(() => ours().length >= count, { what: `${count} stored events of ${runId}` });
    await this.stored.catchUp();
    expect(ours()).toHaveLength(count);
    return ours();
  }
}

export function useTrackingHarness(env: Record<string, string> = {}): TrackingHarness {
  const harness = new TrackingHarness();
  beforeAll(async () => {
    harness.testApp = await startTestApp({ HOOKLINE_ROLES: 'ingest', ...env });
    harness.stored = await readStoredEvents(harness.testApp);
    harness.source = await harness.createSource('Website');
  });
  afterAll(async () => {
    await harness.stored?.stop();
    await harness.testApp?.stop();
  });
  return harness;
}

export const basicAuth = (user: string, password = '') =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A fresh prefix for the ids of one test. */
export const newRunId = (label = 'r') => `${label}${randomBytes(4).toString('hex')}`;
