import { Registry } from 'prom-client';
import type { AvroCodec } from '../../../src/avro/codec';
import type { BatchingProducer } from '../../../src/kafka/batching-producer';
import type { ConsumedMessage } from '../../../src/kafka/consumer-options';
import { silentLogger } from '../../../src/observability/logger';
import type { CatalogView } from '../../../src/records/catalog-model';
import type { DeadLetterWriter } from '../../../src/records/dead-letter';
import type { EventCodec } from '../../../src/records/event';
import type { DedupeWindow } from '../../../src/routing/dedupe';
import { createRouterMetrics } from '../../../src/routing/metrics';
import { EventRouter } from '../../../src/routing/router';
import { sampleDestination } from '../../fixtures/catalog';
import { sampleEvents } from '../../fixtures/events';

const NOW = Date.parse('2024-05-01T18:00:00.000Z');

/**
 * A replayed task keeps when Hookline received the event (latency, payload), and its cutoff clock
 * starts at the replay: before, a replay of an event older than the cutoff could be dead-lettered
 * without an attempt (backpressure, or its destination disabled since).
 */
describe('EventRouter: the times of a task', () => {
  const event = sampleEvents(sampleDestination().sourceId).find((e) => e.type === 'track')!;

  function router() {
    const written: Record<string, unknown>[] = [];
    const r = new EventRouter({
      catalog: { destinationsOfSource: () => [sampleDestination()] } as unknown as CatalogView,
      events: { decodeWithTexts: async () => ({ event, texts: {} }) } as unknown as EventCodec,
      avro: {
        encode: (_: string, value: Record<string, unknown>) => {
          written.push(value);
          return Buffer.alloc(1);
        },
      } as unknown as AvroCodec,
      producer: { send: async () => undefined } as unknown as BatchingProducer,
      deadLetters: {} as DeadLetterWriter,
      dedupe: { claim: () => true, release: () => undefined } as unknown as DedupeWindow,
      deliveriesTopic: 'p.deliveries',
      metrics: createRouterMetrics(new Registry()),
      clock: { now: () => NOW },
      logger: silentLogger(),
    });
    return { r, written };
  }

  it('a replayed task: received when the event was, its cutoff clock started by the replay', async () => {
    const { r, written } = router();
    await expect(r.route(event, sampleDestination().id)).resolves.toBe(1);
    expect(written).toEqual([
      expect.objectContaining({ receivedAt: Date.parse(event.receivedAt), reissuedAt: NOW, attempts: 0 }),
    ]);
  });

  it('a task routed from a live event: received when the event was, not reissued', async () => {
    const { r, written } = router();
    await r.handle({
      topic: 'p.events',
      partition: 0,
      message: { value: Buffer.alloc(1) },
    } as ConsumedMessage);
    expect(written).toEqual([
      expect.objectContaining({ receivedAt: Date.parse(event.receivedAt), reissuedAt: null }),
    ]);
  });
});
