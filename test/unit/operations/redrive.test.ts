import { Registry } from 'prom-client';
import type { AvroCodec } from '../../../src/avro/codec';
import type { CatalogView } from '../../../src/records/catalog-model';
import { KafkaUnavailableError } from '../../../src/core/errors';
import type { BatchingProducer, OutgoingMessage } from '../../../src/kafka/batching-producer';
import { silentLogger } from '../../../src/observability/logger';
import { DlqIndexLoadingError } from '../../../src/operations/errors';
import { createOperationsMetrics } from '../../../src/operations/metrics';
import { Redriver } from '../../../src/operations/redrive';
import { sampleDestination } from '../../fixtures/catalog';
import { at, deadTask, newStore, taskRecord } from './fixtures';

/** Encodes as JSON `{ name, value }`, so the test can read what was written. */
const avro = {
  encode: (name: string, value: unknown) => Buffer.from(JSON.stringify({ name, value })),
} as unknown as AvroCodec;
const decoded = (m: OutgoingMessage) =>
  JSON.parse(m.value!.toString()) as { name: string; value: Record<string, unknown> };

function setup(options: { failOnTopic?: string; ready?: boolean } = {}) {
  const sent: OutgoingMessage[][] = [];
  const producer = {
    send: async (messages: OutgoingMessage[]) => {
      if (messages.some((m) => m.topic === options.failOnTopic)) throw new KafkaUnavailableError('down');
      sent.push(messages);
    },
  } as unknown as BatchingProducer;
  const catalog = {
    destination: (id: string) => (id === 'dst_a' ? sampleDestination({ id }) : undefined),
  } as CatalogView;
  const state = newStore();
  state.apply(at(0, 0), taskRecord(deadTask({ messageId: 'm1', at: 1_000 })));
  state.apply(at(0, 1), taskRecord(deadTask({ messageId: 'm2', at: 2_000 })));
  const registry = new Registry();
  const redriver = new Redriver({
    state,
    ready: () => options.ready ?? true,
    catalog,
    producer,
    avro,
    deliveriesTopic: 'h.deliveries',
    dlqTopic: 'h.dlq',
    metrics: createOperationsMetrics(registry, {
      dlqCounts: () => state.counts(),
      attemptsKept: () => ({ count: 0, bytes: 0, read: 0 }),
    }),
    clock: { now: () => 9_000 },
    logger: silentLogger(),
    chunkSize: 1,
  });
  return { sent, state, redriver, registry };
}

describe('Redriver', () => {
  it('writes fresh tasks keyed like the router, then markers, and marks the dead letters at once', async () => {
    const { sent, state, redriver, registry } = setup();
    const result = await redriver.redrive({});
    expect(result).toEqual({ redriven: 2, taskIds: ['src_1:m1:dst_a', 'src_1:m2:dst_a'], skipped: [] });
    // One chunk per task (chunkSize 1): the task first, its marker only once the task is on Kafka.
    expect(sent.map((batch) => batch.map((m) => `${m.topic} ${m.key}`))).toEqual([
      ['h.deliveries dst_a:u1'],
      ['h.dlq dst_a:u1'],
      ['h.deliveries dst_a:u1'],
      ['h.dlq dst_a:u1'],
    ]);
    expect(decoded(sent[0]![0]!)).toMatchObject({
      name: 'io.hookline.delivery.DeliveryTask',
      value: {
        taskId: 'src_1:m1:dst_a',
        attempts: 0,
        firstAttemptAt: null,
        deadLetterReason: null,
        // The event's receipt is kept; the cutoff clock restarts at the redrive.
        receivedAt: 100,
        reissuedAt: 9_000,
      },
    });
    expect(decoded(sent[1]![0]!)).toEqual({
      name: 'io.hookline.delivery.Redriven',
      value: { taskId: 'src_1:m1:dst_a', deadLetterPartition: 0, deadLetterOffset: 0, redrivenAt: 9_000 },
    });
    expect(await state.pendingTasks()).toEqual([]);
    expect(await registry.getSingleMetricAsString('hookline_redriven_total')).toContain(
      'hookline_redriven_total{destination_id="dst_a"} 2',
    );

    expect(await redriver.redrive({})).toEqual({ redriven: 0, taskIds: [], skipped: [] });
    expect(sent).toHaveLength(4);
  });

  it('leaves a dead letter pending when its marker could not be written', async () => {
    const { state, redriver } = setup({ failOnTopic: 'h.dlq' });
    await expect(redriver.redrive({ taskIds: ['src_1:m1:dst_a'] })).rejects.toBeInstanceOf(
      KafkaUnavailableError,
    );
    expect((await state.pendingTasks()).map((e) => e.task.messageId)).toEqual(['m1', 'm2']);
  });

  it('refuses to redrive before the index has read the whole topic', async () => {
    const { sent, redriver } = setup({ ready: false });
    await expect(redriver.redrive({})).rejects.toBeInstanceOf(DlqIndexLoadingError);
    expect(sent).toEqual([]);
  });

  it('runs one redrive at a time, so concurrent requests never send a task twice', async () => {
    const { sent, redriver } = setup();
    const results = await Promise.all([redriver.redrive({}), redriver.redrive({})]);
    expect(results.map((r) => r.redriven)).toEqual([2, 0]);
    expect(sent.filter((batch) => batch[0]!.topic === 'h.deliveries')).toHaveLength(2);
  });
});
