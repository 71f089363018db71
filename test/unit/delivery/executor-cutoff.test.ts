import { DEFAULT_RETRY_CUTOFF_MS, DEFAULT_RETRY_SCHEDULE_MS } from '../../../src/config/retry';
import { DeliveryExecutor } from '../../../src/delivery/executor';
import type { WebhookClient } from '../../../src/delivery/http/client';
import type { BatchingProducer, OutgoingMessage } from '../../../src/kafka/batching-producer';
import type { DeadLetterWriter } from '../../../src/records/dead-letter';
import type { DeliveryTask } from '../../../src/records/delivery-task';
import { deliveryTask } from '../../support/tasks';
import { executorOptions } from './executor-support';

const S = 1_000;
const H = 3_600 * S;
const NOW = Date.parse('2024-05-01T12:00:00.000Z');

/** An event received 5 h ago, dead-lettered, then redriven (or replayed) a second ago. */
const base: DeliveryTask = deliveryTask({ receivedAtMs: NOW - 5 * H });
const reissued: DeliveryTask = { ...base, reissuedAtMs: NOW - S };

/**
 * Before its first attempt, a task waits (deferred for backpressure, or paused while its
 * destination is disabled) against a cutoff counted from when it was made: its receipt, or the
 * redrive or replay that made it anew. A redriven task of an old event was dead-lettered at once.
 */
describe('DeliveryExecutor: the cutoff of a task never attempted', () => {
  function executor(enabled: boolean) {
    const sent: OutgoingMessage[] = [];
    const deadLettered: { task: DeliveryTask; reason: string }[] = [];
    const exec = new DeliveryExecutor(
      executorOptions({
        enabled,
        client: {} as WebhookClient,
        producer: {
          send: async (messages: OutgoingMessage[]) => void sent.push(...messages),
        } as unknown as BatchingProducer,
        deadLetters: {
          task: async (task: DeliveryTask, reason: string) => void deadLettered.push({ task, reason }),
        } as unknown as DeadLetterWriter,
        retryPolicy: { scheduleMs: DEFAULT_RETRY_SCHEDULE_MS, cutoffMs: DEFAULT_RETRY_CUTOFF_MS },
        clock: { now: () => NOW },
      }),
    );
    const outcome = () =>
      deadLettered.length > 0
        ? `dead-lettered: ${deadLettered.map((d) => d.reason).join(',')}`
        : sent.map((m) => m.topic).join(',');
    return { exec, outcome };
  }

  it.each<[string, DeliveryTask, string]>([
    ['a redriven task of an old event', reissued, 'p.retry.10s'],
    ['a task received 5 h ago, never redriven', base, 'dead-lettered: retry_cutoff'],
    ['a task redriven 4 h ago', { ...reissued, reissuedAtMs: NOW - 4 * H }, 'dead-lettered: retry_cutoff'],
    [
      'an attempted task (first attempt wins)',
      { ...reissued, firstAttemptAtMs: NOW - 4 * H },
      'dead-lettered: retry_cutoff',
    ],
  ])('defers %s → %s', async (_, task, expected) => {
    const { exec, outcome } = executor(true);
    await exec.defer(task);
    expect(outcome()).toBe(expected);
  });

  it.each<[string, DeliveryTask, string]>([
    ['a redriven task of an old event', reissued, 'p.retry.10s'],
    ['a task received 5 h ago, never redriven', base, 'dead-lettered: destination_disabled'],
    [
      'a redriven task paused 3 times before its redrive (the first step again)',
      {
        ...reissued,
        history: [1, 2, 3].map((n) => ({
          atMs: NOW - 5 * H + n * S,
          durationMs: 0,
          urlIndex: 0,
          result: 'deferred' as const,
          error: 'destination_disabled',
        })),
      },
      'p.retry.10s',
    ],
  ])('pauses %s for a disabled destination → %s', async (_, task, expected) => {
    const { exec, outcome } = executor(false);
    await exec.execute(task);
    expect(outcome()).toBe(expected);
  });
});
