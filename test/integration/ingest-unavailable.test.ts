import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';

/**
 * When Kafka does not acknowledge, the tracking API answers 503 (clients retry) rather than 200.
 * Stopping the shared broker is not an option, so this process's own events topic is deleted
 * under it: produce requests then fail until the topic is back.
 */
const ACK_TIMEOUT_MS = 3_000;
let testApp: TestApp;
let writeKey: string;

beforeAll(async () => {
  testApp = await startTestApp({
    HOOKLINE_ROLES: 'ingest',
    HOOKLINE_KAFKA_ACK_TIMEOUT: `${ACK_TIMEOUT_MS}ms`,
  });
  const res = await testApp.admin<{ writeKey: string }>('POST', '/api/v1/sources', { name: 'Website' });
  writeKey = res.body.writeKey;
});

afterAll(async () => {
  await testApp?.stop();
});

async function track(event: string) {
  const res = await fetch(`${testApp.baseUrl}/v1/track`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`,
    },
    body: JSON.stringify({ userId: 'u1', event }),
  });
  return {
    status: res.status,
    body: (await res.json()) as { error?: string; message?: string; success?: boolean },
  };
}

it('answers 503 JSON while the events topic cannot be written, and 200 again once it can', async () => {
  expect(await track('Before')).toEqual({ status: 200, body: { success: true } });

  const { admin, topics } = testApp.app.parts;
  const partitions = (await admin.fetchTopicMetadata({ topics: [topics.events] })).topics[0]!.partitions
    .length;
  await admin.deleteTopics({ topics: [topics.events], timeout: 10_000 });
  await eventually(async () => !(await admin.listTopics()).includes(topics.events), {
    what: 'the topic to be deleted',
  });

  const startedMs = Date.now();
  const unavailable = await track('During');
  const tookMs = Date.now() - startedMs;
  expect(unavailable).toEqual({
    status: 503,
    body: { error: 'unavailable', message: 'events could not be stored; retry later' },
  });
  expect(tookMs).toBeLessThan(ACK_TIMEOUT_MS + 2_000);
  const metrics = await fetch(`${testApp.baseUrl}/metrics`).then((r) => r.text());
  expect(metrics).toContain('hookline_ingest_requests_total{route="/v1/track",status="503"} 1');

  await admin.createTopics({
    topics: [{ topic: topics.events, numPartitions: partitions }],
    waitForLeaders: true,
  });
  await eventually(async () => (await track('After')).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 500,
    what: 'the tracking API to accept events again',
  });
});
