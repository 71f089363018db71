/** The producer library's integration test harness (test/integration/producer*.test.ts). */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Consumer } from 'kafkajs';
import { unframe } from '../../src/avro/wire';
import { stringifyJson } from '../../src/events/json';
import type { HooklineEvent } from '../../src/events/types';
import { createLogger } from '../../src/observability/logger';
import { Analytics, type AnalyticsOptions } from '../../src/producer';
import { clusterFromEnv, startTestApp, type TestApp } from './app';
import { eventually } from './eventually';
import { type Receiver } from './receiver';

/** A parsed JSON answer; tests read into it freely. */
export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Consumed {
  key: string;
  partition: number;
  schemaId: number;
  event: HooklineEvent;
}

/**
 * A whole Hookline (all roles, private topic prefix) for the producer library's tests, with a
 * reader of its events topic; clients and receivers the tests make are closed after each test.
 */
export function useProducerHarness() {
  let app!: TestApp;
  let reader: Consumer;
  const consumed: Consumed[] = [];
  const clients: Analytics[] = [];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    const { kafka, events, topics } = app.app.parts;
    reader = kafka.consumer({
      groupId: `${app.prefix}-test-reader-${randomBytes(4).toString('hex')}`,
      maxWaitTimeInMs: 100,
    });
    await reader.connect();
    await reader.subscribe({ topic: topics.events, fromBeginning: true });
    await reader.run({
      eachMessage: async ({ partition, message }) => {
        consumed.push({
          key: message.key!.toString('utf8'),
          partition,
          schemaId: unframe(message.value!).schemaId,
          event: await events.decode(message.value!),
        });
      },
    });
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  afterAll(async () => {
    await reader?.disconnect();
    await app?.stop();
  });

  async function createSource(name = 'Backend'): Promise<{ id: string; writeKey: string }> {
    const res = await app.admin<Json>('POST', '/api/v1/sources', { name });
    expect(res.status).toBe(201);
    return res.body;
  }

  /** Connects a client to the test app's cluster and topics; closed after each test. */
  async function connect(writeKey: string, options: Partial<AnalyticsOptions> = {}): Promise<Analytics> {
    const cluster = clusterFromEnv();
    const analytics = await Analytics.connect(writeKey, {
      brokers: cluster.kafkaBrokers,
      registry: cluster.schemaRegistryUrl,
      topicPrefix: app.prefix,
      env: {},
      ...options,
    } as AnalyticsOptions);
    clients.push(analytics);
    return analytics;
  }

  /** A debug logger whose lines the test reads. */
  function capturedLogger() {
    const lines: Json[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    return { logger: createLogger({ level: 'debug', destination }), lines };
  }

  async function postApi(path: string, writeKey: string, body: unknown): Promise<Json> {
    const res = await fetch(`${app.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: stringifyJson(body),
    });
    expect(res.status).toBe(200);
    return res.json();
  }

  const withMessageId = (messageId: string) => consumed.filter((c) => c.event.messageId === messageId);

  async function waitForEvents(messageIds: string[], timeoutMs = 20_000): Promise<Consumed[]> {
    return eventually(
      () => {
        const found = messageIds.map((id) => withMessageId(id)[0]);
        return found.every(Boolean) ? (found as Consumed[]) : undefined;
      },
      { timeoutMs, what: `${messageIds.length} events on the events topic` },
    );
  }

  return {
    get app(): TestApp {
      return app;
    },
    consumed,
    clients,
    receivers,
    createSource,
    connect,
    capturedLogger,
    postApi,
    withMessageId,
    waitForEvents,
  };
}
