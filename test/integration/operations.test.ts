import type { TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';
import type { ReceivedRequest } from '../support/receiver';

/**
 * Operations on the real broker with real receivers: dead letters (list, inspect, redrive), the
 * attempt log, and replays of the events topic. The 4-hour retry policy is scaled to a second.
 */
describe('operations', () => {
  const { app, receiver } = testScope();

  it('lists a dead letter with its history, redrives it exactly once, and logs every attempt', async () => {
    const t = await app({ HOOKLINE_RETRY_SCHEDULE: '200ms,400ms', HOOKLINE_RETRY_CUTOFF: '1s' });
    const src = await createSource(t);
    let healthy = false;
    const r = await receiver(() => ({ status: healthy ? 200 : 503 }));
    const destinationId = await createDestination(t, {
      sourceId: src.id,
      sharedSecret: 'never-shown-secret',
      webhooks: [{ url: r.url, headers: { 'X-Api-Key': 'never-shown-key' } }],
    });
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'Doomed', messageId: 'm-dlq' });

    const listed = await eventually(
      async () => {
        const res = await t.admin<DeadLetterList>(
          'GET',
          `/api/v1/dead-letters?destinationId=${destinationId}`,
        );
        return res.status === 200 && res.body.deadLetters.length === 1 ? res.body : undefined;
      },
      { what: 'the dead letter listed', timeoutMs: 20_000 },
    );
    const failures = r.requests.length;
    const dead = listed.deadLetters[0]!;
    expect(dead).toMatchObject({
      kind: 'task',
      destinationId,
      messageId: 'm-dlq',
      reason: 'retry_cutoff',
      attempts: failures,
    });
    expect(dead.history.map((h) => h.result)).toEqual(Array(failures).fill('http_5xx'));
    expect(dead.redrivenAt).toBeUndefined();
    const shown = await t.admin<{ payload: string }>(
      'GET',
      `/api/v1/dead-letters/${encodeURIComponent(dead.taskId)}`,
    );
    expect(shown.status).toBe(200);
    expect(JSON.parse(shown.body.payload)).toMatchObject({ messageId: 'm-dlq', event: 'Doomed' });
    for (const text of [JSON.stringify(listed), JSON.stringify(shown.body)]) {
      expect(text).not.toContain('never-shown');
      expect(text).not.toContain(r.url);
    }

    healthy = true;
    const first = await t.admin<RedriveResult>('POST', '/api/v1/dead-letters/redrive', { destinationId });
    expect(first).toMatchObject({ status: 200, body: { redriven: 1, taskIds: [dead.taskId], skipped: [] } });
    await eventually(() => r.requests.length === failures + 1 || undefined, {
      what: 'the redriven delivery',
    });
    expect(messageIds(r.requests.slice(failures))).toEqual(['m-dlq']);

    const deliveriesBefore = await recordCount(t, `${t.prefix}.deliveries`);
    const second = await t.admin<RedriveResult>('POST', '/api/v1/dead-letters/redrive', { destinationId });
    expect(second).toMatchObject({ status: 200, body: { redriven: 0, taskIds: [] } });
    const again = await t.admin<RedriveResult>('POST', '/api/v1/dead-letters/redrive', {
      taskIds: [dead.taskId],
    });
    expect(again.body).toMatchObject({
      redriven: 0,
      skipped: [{ id: dead.taskId, reason: 'already_redriven' }],
    });
    expect(await recordCount(t, `${t.prefix}.deliveries`)).toBe(deliveriesBefore);
    const after = await t.admin<DeadLetterList>('GET', `/api/v1/dead-letters?destinationId=${destinationId}`);
    expect(Date.parse(after.body.deadLetters[0]!.redrivenAt!)).toBeGreaterThan(
      Date.parse(dead.deadLetteredAt),
    );

    // Every attempt of the event, newest first: the redriven delivery, then the failed round.
    const attempts = await eventually(
      async () => {
        const res = await t.admin<AttemptList>(
          'GET',
          `/api/v1/destinations/${destinationId}/attempts?messageId=m-dlq`,
        );
        return res.body.attempts.length === failures + 1 ? res.body.attempts : undefined;
      },
      { what: 'every attempt in the attempt log' },
    );
    expect(attempts.map((a) => a.outcome)).toEqual([
      'delivered',
      'dead_lettered',
      ...Array(failures - 1).fill('retry_scheduled'),
    ]);
    expect(attempts.map((a) => a.attempt)).toEqual([
      1,
      ...Array.from({ length: failures }, (_, i) => failures - i),
    ]);
    expect(attempts[1]).toMatchObject({
      detail: 'retry_cutoff',
      urls: [{ urlIndex: 0, result: 'http_5xx', status: 503 }],
    });
    const onlyDead = await t.admin<AttemptList>(
      'GET',
      `/api/v1/destinations/${destinationId}/attempts?outcome=dead_lettered`,
    );
    expect(onlyDead.body.attempts.map((a) => a.messageId)).toEqual(['m-dlq']);
    // What the log keeps, as /metrics reports it (HOOKLINE_ATTEMPT_INDEX_MAX_BYTES bounds it).
    const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
    expect(gauge('hookline_attempt_index_attempts')).toBeGreaterThanOrEqual(failures + 1);
    expect(gauge('hookline_attempt_index_bytes')).toBeGreaterThan(100 * (failures + 1));
    // Exactly once: nothing arrived after the redriven delivery.
    expect(r.requests).toHaveLength(failures + 1);
  });

  it('gives a redriven task of an event older than the cutoff a new cutoff: deferred, then delivered', async () => {
    const t = await app({ HOOKLINE_RETRY_SCHEDULE: '200ms,400ms', HOOKLINE_RETRY_CUTOFF: '3s' });
    const src = await createSource(t);
    let healthy = false;
    const r = await receiver((req) => {
      if (!healthy) return { status: 503 };
      // The same user's earlier event, answered late: its lane stalls, so the next task of that
      // user is deferred (backpressure), without an attempt.
      return messageIds([req])[0] === 'm-slow' ? { status: 200, delayMs: 1_500 } : { status: 200 };
    });
    const destinationId = await createDestination(t, { sourceId: src.id, webhooks: [{ url: r.url }] });
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'Old', messageId: 'm-old' });
    await eventually(
      async () => {
        const res = await t.admin<DeadLetterList>(
          'GET',
          `/api/v1/dead-letters?destinationId=${destinationId}`,
        );
        return res.body.total === 1 || undefined;
      },
      { what: 'the dead letter listed', timeoutMs: 20_000 },
    );
    // Received longer ago than the cutoff.
    await eventually(() => Date.now() > r.requests[0]!.atMs + 3_000 || undefined, {
      what: 'the cutoff past',
    });

    const failures = r.requests.length;
    healthy = true;
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'Slow', messageId: 'm-slow' });
    await eventually(
      () => r.requests.some((q) => messageIds([q])[0] === 'm-slow' && Date.now() - q.atMs > 300) || undefined,
      { what: 'the slow request in flight' },
    );
    const redriven = await t.admin<RedriveResult>('POST', '/api/v1/dead-letters/redrive', { destinationId });
    expect(redriven.body).toMatchObject({ redriven: 1 });

    await eventually(() => messageIds(r.requests.slice(failures)).includes('m-old') || undefined, {
      what: 'the redriven delivery',
    });
    const res = await t.admin<DeadLetterList>('GET', `/api/v1/dead-letters?destinationId=${destinationId}`);
    expect(res.body.total).toBe(1); // not dead-lettered again
    const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(
      new RegExp(
        `^hookline_deliveries_total\\{destination_id="${destinationId}",outcome="deferred"\\} [1-9]`,
        'm',
      ),
    );
  });

  it('replays to one destination exactly the events written since a time', async () => {
    const t = await app();
    const src = await createSource(t);
    const replayed = await receiver();
    const bystander = await receiver();
    const destinationId = await createDestination(t, { sourceId: src.id, webhooks: [{ url: replayed.url }] });
    await createDestination(t, { sourceId: src.id, webhooks: [{ url: bystander.url }] });
    const other = await createSource(t, 'other source');
    await createDestination(t, { sourceId: other.id, webhooks: [{ url: bystander.url }] });

    const batch = (ids: string[]) => ({
      batch: ids.map((messageId) => ({ type: 'track', userId: 'u', event: 'E', messageId })),
    });
    await sendTracking(t, src.writeKey, '/v1/batch', batch(['m-before-1', 'm-before-2']));
    await eventually(() => (replayed.requests.length === 2 && bystander.requests.length === 2) || undefined, {
      what: 'the earlier events delivered',
    });
    // Both were written to Kafka before they were delivered, so before `since`.
    const since = new Date().toISOString();
    await sendTracking(t, src.writeKey, '/v1/batch', batch(['m-after-1', 'm-after-2', 'm-after-3']));
    await sendTracking(t, other.writeKey, '/v1/track', { userId: 'u', event: 'E', messageId: 'm-other' });
    await eventually(() => (replayed.requests.length === 5 && bystander.requests.length === 6) || undefined, {
      what: 'the later events delivered',
    });

    const started = await t.admin<Replay>('POST', `/api/v1/destinations/${destinationId}/replay`, { since });
    expect(started).toMatchObject({ status: 202, body: { destinationId, since, done: false } });
    const done = await eventually(
      async () => {
        const res = await t.admin<Replay>('GET', `/api/v1/replays/${started.body.id}`);
        return res.body.done ? res.body : undefined;
      },
      { what: 'the replay done' },
    );
    expect(done).toMatchObject({
      state: 'done',
      eventsTotal: 4,
      eventsRead: 4,
      eventsSkipped: 0,
      tasksWritten: 3,
    });
    await eventually(() => replayed.requests.length === 8 || undefined, { what: 'the replayed deliveries' });
    expect(messageIds(replayed.requests.slice(5)).sort()).toEqual(['m-after-1', 'm-after-2', 'm-after-3']);
    expect(bystander.requests).toHaveLength(6);
  });

  it('lists undecodable records, refuses to redrive them, and answers errors as JSON', async () => {
    const t = await app();
    const producer = t.app.parts.kafka.producer();
    await producer.connect();
    await producer.send({
      topic: `${t.prefix}.deliveries`,
      messages: [{ key: 'k', value: Buffer.from('not avro') }],
    });
    await producer.disconnect();

    const undecodable = await eventually(
      async () => {
        const res = await t.admin<DeadLetterList>('GET', '/api/v1/dead-letters');
        return res.status === 200 ? res.body.deadLetters.find((d) => d.kind === 'undecodable') : undefined;
      },
      { what: 'the undecodable record listed' },
    );
    expect(undecodable).toMatchObject({
      source: { topic: `${t.prefix}.deliveries`, offset: 0 },
      valueBytes: 8,
    });
    const redrive = await t.admin<RedriveResult>('POST', '/api/v1/dead-letters/redrive', {
      taskIds: [undecodable.id, 'nope'],
    });
    expect(redrive.body).toEqual({
      redriven: 0,
      taskIds: [],
      skipped: [
        { id: undecodable.id, reason: 'not_redrivable' },
        { id: 'nope', reason: 'not_found' },
      ],
    });
    expect(
      (await t.admin('GET', `/api/v1/dead-letters/${encodeURIComponent(undecodable.id)}`)).body,
    ).toMatchObject({
      kind: 'undecodable',
    });

    const unauthorized = await fetch(`${t.baseUrl}/api/v1/dead-letters`);
    expect(unauthorized.status).toBe(401);
    const expectError = async (method: string, path: string, body: unknown, status: number, error: string) =>
      expect(await t.admin(method, path, body)).toMatchObject({ status, body: { error } });
    await expectError('GET', '/api/v1/dead-letters?limit=5000', undefined, 400, 'validation_failed');
    await expectError('GET', '/api/v1/dead-letters?since=yesterday', undefined, 400, 'validation_failed');
    await expectError('GET', '/api/v1/dead-letters/src:m:dst', undefined, 404, 'dead_letter_not_found');
    await expectError(
      'GET',
      '/api/v1/destinations/nope/attempts?outcome=lost',
      undefined,
      400,
      'validation_failed',
    );
    await expectError('GET', '/api/v1/destinations/nope/attempts', undefined, 404, 'destination_not_found');
    await expectError(
      'POST',
      '/api/v1/destinations/nope/replay',
      { since: new Date().toISOString() },
      404,
      'destination_not_found',
    );
    await expectError('POST', '/api/v1/destinations/nope/replay', {}, 400, 'validation_failed');
    await expectError('GET', '/api/v1/replays/rpl_nope', undefined, 404, 'replay_not_found');
    await expectError(
      'POST',
      '/api/v1/dead-letters/redrive',
      { destination: 'typo' },
      400,
      'validation_failed',
    );
  });
});

interface DeadLetterList {
  deadLetters: {
    kind: 'task' | 'undecodable';
    id: string;
    taskId: string;
    deadLetteredAt: string;
    redrivenAt?: string;
    history: { result: string }[];
  }[];
  total: number;
}
interface RedriveResult {
  redriven: number;
  taskIds: string[];
  skipped: { id: string; reason: string }[];
}
interface AttemptList {
  attempts: { messageId: string; outcome: string; attempt: number }[];
}
interface Replay {
  id: string;
  done: boolean;
}

function messageIds(requests: ReceivedRequest[]): string[] {
  return requests.map((q) => (JSON.parse(q.body.toString('utf8')) as { messageId: string }).messageId);
}

async function recordCount(t: TestApp, topic: string): Promise<number> {
  const offsets = await t.app.parts.admin.fetchTopicOffsets(topic);
  return offsets.reduce((n, p) => n + Number(p.high), 0);
}
