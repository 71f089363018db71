import { attemptView, deadLetterDetail, deadLetterView, replayView } from '../../../src/operations/views';
import { at, deadTask } from './fixtures';

describe('operations views', () => {
  it('shows a task dead letter with reason, attempts, history and times, without its payload', () => {
    const entry = {
      kind: 'task' as const,
      position: at(0, 4),
      task: deadTask({ at: Date.UTC(2024, 4, 1), reissuedAtMs: 150 }),
      redrivenAtMs: Date.UTC(2024, 4, 2),
    };
    expect(deadLetterView(entry)).toEqual({
      kind: 'task',
      id: 'src_1:m1:dst_a',
      taskId: 'src_1:m1:dst_a',
      destinationId: 'dst_a',
      sourceId: 'src_1',
      messageId: 'm1',
      eventType: 'track',
      reason: 'retry_cutoff',
      attempts: 2,
      receivedAt: '1970-01-01T00:00:00.100Z',
      firstAttemptAt: '1970-01-01T00:00:00.200Z',
      reissuedAt: '1970-01-01T00:00:00.150Z',
      deadLetteredAt: '2024-05-01T00:00:00.000Z',
      redrivenAt: '2024-05-02T00:00:00.000Z',
      history: [
        {
          at: '1970-01-01T00:00:00.200Z',
          durationMs: 5,
          urlIndex: 0,
          status: 503,
          result: 'http_5xx',
          error: undefined,
        },
        {
          at: '1970-01-01T00:00:00.600Z',
          durationMs: 7,
          urlIndex: 0,
          status: undefined,
          result: 'timeout',
          error: 'timed out',
        },
      ],
      dlq: { partition: 0, offset: '4' },
    });
  });

  it('shows an undecodable record by position, with its size but not its bytes', () => {
    const copy = {
      topic: 'h.deliveries',
      partition: 1,
      offset: 7,
      reason: 'corrupt',
      deadLetteredAtMs: 0,
      valueBytes: 3,
    };
    expect(deadLetterView({ kind: 'undecodable', position: at(0, 2), copy })).toEqual({
      kind: 'undecodable',
      id: 'undecodable:0:2',
      reason: 'corrupt',
      deadLetteredAt: '1970-01-01T00:00:00.000Z',
      source: { topic: 'h.deliveries', partition: 1, offset: 7 },
      valueBytes: 3,
      dlq: { partition: 0, offset: '2' },
    });
  });

  it('details the latest dead letter of a task with its payload and the earlier ones', () => {
    const detail = deadLetterDetail([
      { kind: 'task', position: at(0, 0), task: deadTask({ at: 1_000 }), redrivenAtMs: 1_500 },
      { kind: 'task', position: at(0, 2), task: deadTask({ at: 2_000, attempts: 4 }) },
    ]);
    expect(detail).toMatchObject({ attempts: 4, payload: '{"messageId":"m1"}', redrivenAt: undefined });
    expect('previous' in detail && detail.previous).toMatchObject([
      { dlq: { offset: '0' }, redrivenAt: '1970-01-01T00:00:01.500Z' },
    ]);
    expect(JSON.stringify('previous' in detail && detail.previous)).not.toContain('payload');
  });

  it('shows attempts and replays with ISO times', () => {
    expect(
      attemptView({
        taskId: 't',
        destinationId: 'd',
        sourceId: 's',
        messageId: 'm',
        eventType: 'track',
        attempt: 2,
        atMs: 0,
        durationMs: 4,
        outcome: 'retry_scheduled',
        detail: '1m',
        dueAtMs: 60_000,
        urls: [{ urlIndex: 0, result: 'http_5xx', status: 500, durationMs: 4 }],
      }),
    ).toMatchObject({ at: '1970-01-01T00:00:00.000Z', dueAt: '1970-01-01T00:01:00.000Z', detail: '1m' });
    const progress = {
      id: 'r',
      destinationId: 'd',
      sinceMs: 0,
      eventsRead: 1,
      eventsSkipped: 0,
      tasksWritten: 1,
      startedAtMs: 5,
    };
    expect(replayView({ ...progress, state: 'running' })).toMatchObject({
      done: false,
      since: '1970-01-01T00:00:00.000Z',
    });
    expect(replayView({ ...progress, state: 'failed', error: 'boom', finishedAtMs: 9 })).toMatchObject({
      done: true,
      error: 'boom',
    });
  });
});
