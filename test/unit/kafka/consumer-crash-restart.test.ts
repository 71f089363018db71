import { EventEmitter } from 'node:events';
import { Registry } from 'prom-client';
import type { Kafka } from 'kafkajs';
import { ConcurrentConsumer } from '../../../src/kafka/consumer';
import { createLogger } from '../../../src/observability/logger';

const EVENTS = { REBALANCING: 'rebalancing', CRASH: 'crash', GROUP_JOIN: 'group_join' } as const;

/** A kafkajs client whose consumer records its stop() calls and whose events the test emits. */
function fakeKafka() {
  const emitter = new EventEmitter();
  const consumer = {
    events: EVENTS,
    on: (name: string, listener: (event: unknown) => void) => emitter.on(name, listener),
    pause: jest.fn(),
    stop: jest.fn(async () => undefined),
    disconnect: jest.fn(async () => undefined),
    commitOffsets: jest.fn(async () => undefined),
  };
  const admin = { disconnect: jest.fn(async () => undefined) };
  const kafka = { consumer: () => consumer, admin: () => admin } as unknown as Kafka;
  const crash = (restart: boolean) =>
    emitter.emit(EVENTS.CRASH, { payload: { error: new Error('broker went away'), groupId: 'g', restart } });
  return { kafka, consumer, crash };
}

function newConsumer(kafka: Kafka) {
  return new ConcurrentConsumer({
    kafka,
    groupId: 'g',
    topics: ['t'],
    handler: async () => undefined,
    maxInFlight: 10,
    logger: createLogger({ level: 'silent' }),
    metrics: new Registry(),
    drainTimeoutMs: 10,
  });
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('ConcurrentConsumer: a kafkajs restart decided as the consumer stops', () => {
  it('is cancelled by stopping the kafkajs consumer again, after its timer is armed', async () => {
    const { kafka, consumer, crash } = fakeKafka();
    const c = newConsumer(kafka);
    await c.stop();
    expect(consumer.disconnect).toHaveBeenCalledTimes(1);
    crash(true); // restartOnFailure answered before the stop; the timer comes after this event
    expect(consumer.stop).not.toHaveBeenCalled(); // not yet: the timer is armed after the event
    await nextTurn();
    expect(consumer.stop).toHaveBeenCalledTimes(1);
  });

  it('leaves kafkajs alone when it does not restart, or when the consumer is not stopping', async () => {
    const stopped = fakeKafka();
    await newConsumer(stopped.kafka).stop();
    stopped.crash(false);
    const running = fakeKafka();
    newConsumer(running.kafka);
    running.crash(true); // a crash while running: kafkajs's restart is wanted
    await nextTurn();
    expect(stopped.consumer.stop).not.toHaveBeenCalled();
    expect(running.consumer.stop).not.toHaveBeenCalled();
  });
});
