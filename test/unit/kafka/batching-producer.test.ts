import type { Producer, ProducerBatch } from 'kafkajs';
import { KafkaUnavailableError } from '../../../src/core/errors';
import { BatchingProducer, type OutgoingMessage } from '../../../src/kafka/batching-producer';
import { silentLogger } from '../../../src/observability/logger';

/** A stand-in for kafkajs's producer whose acknowledgements the test releases by hand. */
function controllableProducer() {
  const calls: { batch: ProducerBatch; ack: () => void; fail: (err: Error) => void }[] = [];
  const producer = {
    sendBatch: (batch: ProducerBatch) =>
      new Promise((resolve, reject) => calls.push({ batch, ack: () => resolve([]), fail: reject })),
  } as unknown as Producer;
  return { producer, calls };
}

/** Lets pending promise callbacks (the producer's next request) run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const msg = (value: string, topic = 't'): OutgoingMessage => ({
  topic,
  key: value,
  value: Buffer.from(value),
});
const values = (batch: ProducerBatch) =>
  batch.topicMessages!.flatMap((t) => t.messages.map((m) => String(m.value)));

describe('BatchingProducer', () => {
  it('sends at once when idle and coalesces what arrives while a request is in flight', async () => {
    const { producer, calls } = controllableProducer();
    const p = new BatchingProducer({ producer, ackTimeoutMs: 5_000, logger: silentLogger() });
    const first = p.send([msg('a')]);
    expect(calls).toHaveLength(1);
    const second = p.send([msg('b')]);
    const third = p.send([msg('c', 'u'), msg('d')]);
    expect(calls).toHaveLength(1);
    calls[0]!.ack();
    await first;
    await settle();
    expect(calls).toHaveLength(2);
    expect(values(calls[1]!.batch)).toEqual(['b', 'd', 'c']);
    expect(calls[1]!.batch.acks).toBe(-1);
    calls[1]!.ack();
    await Promise.all([second, third]);
  });

  it('rejects every caller of a failed request with a retriable error', async () => {
    const { producer, calls } = controllableProducer();
    const p = new BatchingProducer({ producer, ackTimeoutMs: 5_000, logger: silentLogger() });
    const first = p.send([msg('a')]);
    calls[0]!.fail(new Error('broker down'));
    await expect(first).rejects.toBeInstanceOf(KafkaUnavailableError);
    await expect(first).rejects.toMatchObject({ retriable: true });
  });

  it('times a caller out and never sends messages that were still queued', async () => {
    jest.useFakeTimers();
    try {
      const { producer, calls } = controllableProducer();
      const p = new BatchingProducer({ producer, ackTimeoutMs: 1_000, logger: silentLogger() });
      const first = p.send([msg('a')]);
      const queued = p.send([msg('b')]);
      jest.advanceTimersByTime(1_001);
      await expect(queued).rejects.toBeInstanceOf(KafkaUnavailableError);
      await expect(first).rejects.toBeInstanceOf(KafkaUnavailableError);
      calls[0]!.ack();
      await Promise.resolve();
      await Promise.resolve();
      expect(calls).toHaveLength(1);
    } finally {
      jest.useRealTimers();
    }
  });

  it('caps the bytes of one request but always sends at least one caller', async () => {
    const { producer, calls } = controllableProducer();
    const p = new BatchingProducer({
      producer,
      ackTimeoutMs: 5_000,
      maxBatchBytes: 3,
      logger: silentLogger(),
    });
    const sends = [p.send([msg('aaaaa')]), p.send([msg('b')]), p.send([msg('c')])];
    calls[0]!.ack();
    await sends[0];
    await settle();
    expect(values(calls[1]!.batch)).toEqual(['b']);
    calls[1]!.ack();
    await sends[1];
    await settle();
    calls[2]!.ack();
    await sends[2];
  });

  it('untilAcknowledged: waits for Kafka however long, sharing the one queue and request', async () => {
    jest.useFakeTimers();
    try {
      const { producer, calls } = controllableProducer();
      const p = new BatchingProducer({ producer, ackTimeoutMs: 1_000, logger: silentLogger() });
      const patient = p.untilAcknowledged();
      const outcome = (promise: Promise<void>) =>
        promise.then(
          () => 'acknowledged',
          () => 'rejected',
        );
      const first = outcome(patient.send([msg('a')]));
      const impatient = outcome(p.send([msg('b')]));
      const second = outcome(patient.send([msg('c')]));
      expect(calls).toHaveLength(1); // one request at a time across both
      jest.advanceTimersByTime(60_000);
      expect(await impatient).toBe('rejected');
      calls[0]!.ack();
      expect(await first).toBe('acknowledged');
      await jest.runAllTimersAsync();
      expect(calls.map((c) => values(c.batch))).toEqual([['a'], ['c']]); // b gave up while queued
      calls[1]!.ack();
      expect(await second).toBe('acknowledged');
    } finally {
      jest.useRealTimers();
    }
  });
});
