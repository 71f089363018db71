import { KafkaUnavailableError, UnencodableRecordError } from '../../../src/core/errors';
import { DELIVERED_FROM_HEADER } from '../../../src/delivery/delivered-lookup';
import { DeliveryExecutor } from '../../../src/delivery/executor';
import type { WebhookClient } from '../../../src/delivery/http/client';
import type { BatchingProducer } from '../../../src/kafka/batching-producer';
import type { DeadLetterWriter } from '../../../src/records/dead-letter';
import type { DeliveryTask } from '../../../src/records/delivery-task';
import { deliveryTask } from '../../support/tasks';
import { executorOptions } from './executor-support';

/**
 * Kafka unavailable right after a delivery (a broker restart): the hand-off is retried on its own,
 * and the receiver is not called again for it. Before, the task failed and the consumer ran it
 * again from the start, one more POST to the receiver per retry.
 */
describe('DeliveryExecutor hand-off while Kafka is unavailable', () => {
  const task: DeliveryTask = deliveryTask({ receivedAtMs: Date.now() });

  function executor(send: jest.Mock) {
    const post = jest.fn(async () => ({ kind: 'response' as const, status: 200, durationMs: 1 }));
    const exec = new DeliveryExecutor(
      executorOptions({
        client: { post, userAgent: 'test', close: () => undefined } as WebhookClient,
        producer: { send } as unknown as BatchingProducer,
        deadLetters: {} as DeadLetterWriter,
        retryPolicy: { scheduleMs: [1_000], cutoffMs: 60_000 },
      }),
    );
    return { exec, post };
  }

  it('retries only the hand-off: the receiver is called once', async () => {
    const send = jest
      .fn()
      .mockRejectedValueOnce(new KafkaUnavailableError('no ack'))
      .mockRejectedValueOnce(new KafkaUnavailableError('no ack'))
      .mockResolvedValue(undefined);
    const { exec, post } = executor(send);
    await exec.execute(task);
    expect(post).toHaveBeenCalledTimes(1);
    expect(send).toHaveBeenCalledTimes(3);
  });

  it('names where a delivered task was read on its attempt record (DELIVERED_FROM_HEADER)', async () => {
    const send = jest.fn().mockResolvedValue(undefined);
    const { exec } = executor(send);
    await exec.execute(task, undefined, 'p.deliveries:2:41');
    const [[messages]] = send.mock.calls as [[{ topic: string; headers?: Record<string, string> }[]]];
    expect(messages).toEqual([
      expect.objectContaining({
        topic: 'p.attempts',
        headers: { [DELIVERED_FROM_HEADER]: 'p.deliveries:2:41' },
      }),
    ]);
  });

  it('once stopped, a failed hand-off fails the task (the next process redelivers it)', async () => {
    const send = jest.fn().mockRejectedValue(new KafkaUnavailableError('no ack'));
    const { exec } = executor(send);
    exec.stop();
    await expect(exec.execute(task)).rejects.toThrow(KafkaUnavailableError);
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('a failure that is not transient is not retried', async () => {
    const send = jest.fn().mockRejectedValue(new UnencodableRecordError('bad'));
    const { exec } = executor(send);
    await expect(exec.execute(task)).rejects.toThrow(UnencodableRecordError);
    expect(send).toHaveBeenCalledTimes(1);
  });
});
