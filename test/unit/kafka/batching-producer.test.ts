import type { Producer, ProducerBatch } from 'kafkajs';
import { KafkaUnavailableError, RecordTooLargeError } from '../../../src/core/errors';
import { BatchingProducer, lingerLeftMs } from '../../../src/kafka/batching-producer';
import { DEFAULT_MAX_RECORD_BYTES, recordBytes, type OutgoingMessage } from '../../../src/kafka/record-size';
import { crc32c } from '../../../src/kafka/kafkajs-fork/crc32c';
import { encodeProduceRequest } from '../../../src/kafka/kafkajs-fork/produce-request';
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

  it('keeps a request of many small records with headers under the broker limit, in one partition', async () => {
    // Attempt records after a broker outage: thousands queued, all for one destination's partition.
    // Counting only keys and values, one request took ~9,800 of them: 1.4 MB on the wire, refused
    // by the broker (message.max.bytes, 1 MB), and every caller in it failed, again and again.
    const { producer, calls } = controllableProducer();
    const p = new BatchingProducer({ producer, ackTimeoutMs: undefined, logger: silentLogger() });
    const record = (i: number): OutgoingMessage => ({
      topic: 'hookline.attempts',
      key: 'dst_0123456789abcdef',
      value: Buffer.alloc(60, i),
      headers: { 'hookline-delivered-from': `hookline.deliveries:12:${1_000_000 + i}` },
    });
    const sends = [p.send([record(0)])];
    for (let i = 1; i <= 12_000; i++) sends.push(p.send([record(i)]));
    for (let n = 0; n < calls.length || sends.length > 0; n++) {
      await settle();
      if (n >= calls.length) break;
      const messages = calls[n]!.batch.topicMessages!.flatMap((t) => t.messages);
      const wire = encodeProduceRequest(
        {
          acks: -1,
          timeout: 30_000,
          topicData: [{ topic: 'hookline.attempts', partitions: [{ partition: 0, messages }] }],
        },
        0,
        crc32c,
      )!;
      expect(wire.length).toBeLessThan(1_048_588); // one partition's batch, plus the request's header
      calls[n]!.ack();
    }
    await Promise.all(sends);
    expect(calls.length).toBeGreaterThan(2);
  });

  it('refuses a record over the limit for its caller alone, before it is sent', async () => {
    const { producer, calls } = controllableProducer();
    const p = new BatchingProducer({ producer, ackTimeoutMs: undefined, logger: silentLogger() });
    const first = p.send([msg('a')]);
    const before = p.send([msg('b')]);
    const big: OutgoingMessage = { topic: 't', key: 'k', value: Buffer.alloc(DEFAULT_MAX_RECORD_BYTES) };
    const tooLarge = p.send([msg('x'), big]);
    const after = p.send([msg('c')]);
    await expect(tooLarge).rejects.toBeInstanceOf(RecordTooLargeError);
    await expect(tooLarge).rejects.toMatchObject({ retriable: false });
    calls[0]!.ack();
    await first;
    await settle();
    expect(calls.map((c) => values(c.batch))).toEqual([['a'], ['b', 'c']]);
    calls[1]!.ack();
    await Promise.all([before, after]);
  });

  it('a request the broker refuses fails only the caller whose records it refuses', async () => {
    // MESSAGE_TOO_LARGE for a topic whose max.message.bytes is under the record: kafkajs rejects the
    // whole request (not retriable). Every caller sharing it failed, and failed again on each retry.
    const { producer, calls } = controllableProducer();
    const p = new BatchingProducer({ producer, ackTimeoutMs: undefined, logger: silentLogger() });
    const outcome = (promise: Promise<void>) =>
      promise.then(
        () => 'acknowledged',
        (err: unknown) => (err instanceof KafkaUnavailableError ? 'failed' : 'other'),
      );
    const first = outcome(p.send([msg('a')]));
    const shared = [outcome(p.send([msg('b')])), outcome(p.send([msg('c')])), outcome(p.send([msg('d')]))];
    calls[0]!.ack();
    await settle();
    expect(values(calls[1]!.batch)).toEqual(['b', 'c', 'd']);
    const refused = Object.assign(new Error('message too large'), {
      retriable: false,
      type: 'MESSAGE_TOO_LARGE',
    });
    calls[1]!.fail(refused);
    for (const [i, expected] of [
      [2, 'b'],
      [3, 'c'],
      [4, 'd'],
    ] as const) {
      await settle();
      expect(values(calls[i]!.batch)).toEqual([expected]);
      if (expected === 'c') calls[i]!.fail(refused);
      else calls[i]!.ack();
    }
    expect(await Promise.all([first, ...shared])).toEqual([
      'acknowledged',
      'acknowledged',
      'failed',
      'acknowledged',
    ]);
  });

  it('a request that failed for a retriable reason fails every caller in it, without sending again', async () => {
    const { producer, calls } = controllableProducer();
    const p = new BatchingProducer({ producer, ackTimeoutMs: undefined, logger: silentLogger() });
    const first = p.send([msg('a')]);
    const shared = [p.send([msg('b')]), p.send([msg('c')])];
    calls[0]!.ack();
    await first;
    await settle();
    calls[1]!.fail(Object.assign(new Error('broker down'), { retriable: true }));
    for (const s of shared) await expect(s).rejects.toBeInstanceOf(KafkaUnavailableError);
    await settle();
    expect(calls).toHaveLength(2);
  });

  describe('lingering writes', () => {
    const newProducer = (lingerBytes = 1_000) => {
      const { producer, calls } = controllableProducer();
      const p = new BatchingProducer({
        producer,
        ackTimeoutMs: undefined,
        lingerBytes,
        logger: silentLogger(),
      });
      return { calls, urgent: p, lingering: p.lingering(5) };
    };
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('wait up to lingerMs for company, then share one request', async () => {
      const { calls, lingering } = newProducer();
      const sent = [lingering.send([msg('a')])];
      jest.advanceTimersByTime(3);
      sent.push(lingering.send([msg('b')]));
      expect(calls).toHaveLength(0);
      jest.advanceTimersByTime(1);
      expect(calls).toHaveLength(0);
      jest.advanceTimersByTime(1); // 5 ms after the first
      expect(calls.map((c) => values(c.batch))).toEqual([['a', 'b']]);
      calls[0]!.ack();
      await Promise.all(sent);
      expect(jest.getTimerCount()).toBe(0);
    });

    it('go at once with a write that may not wait', async () => {
      const { calls, urgent, lingering } = newProducer();
      const sent = [lingering.send([msg('a')]), urgent.send([msg('b')])];
      expect(calls.map((c) => values(c.batch))).toEqual([['a', 'b']]);
      calls[0]!.ack();
      await Promise.all(sent);
      expect(jest.getTimerCount()).toBe(0); // the linger timer was cleared
    });

    it('go at once when lingerBytes wait', () => {
      const { calls, lingering } = newProducer(2 * recordBytes(msg('a'))); // two messages
      void lingering.send([msg('a')]);
      expect(calls).toHaveLength(0);
      void lingering.send([msg('b')]);
      expect(calls.map((c) => values(c.batch))).toEqual([['a', 'b']]);
    });

    it('that waited through a request in flight go with the next one, without lingering again', async () => {
      const { calls, urgent, lingering } = newProducer();
      void urgent.send([msg('a')]);
      void lingering.send([msg('b')]);
      jest.advanceTimersByTime(10); // the request for a is still in flight
      calls[0]!.ack();
      await jest.advanceTimersByTimeAsync(0);
      expect(calls.map((c) => values(c.batch))).toEqual([['a'], ['b']]);
    });
  });
});

describe('lingerLeftMs', () => {
  const base = {
    urgentQueued: 0,
    queuedBytes: 100,
    lingerBytes: 16_384,
    oldestLingerUntilMs: 1_005,
    nowMs: 1_000,
  };
  it.each<[string, Partial<typeof base>, number]>([
    ['small lingering writes: until the oldest one is due', {}, 5],
    ['the oldest is due', { nowMs: 1_005 }, 0],
    ['past due (waited through a request in flight)', { nowMs: 1_020 }, 0],
    ['a write that may not wait is queued', { urgentQueued: 1 }, 0],
    ['lingerBytes are waiting', { queuedBytes: 16_384 }, 0],
    ['just under lingerBytes', { queuedBytes: 16_383 }, 5],
  ])('%s', (_, over, expected) => {
    expect(lingerLeftMs({ ...base, ...over })).toBe(expected);
  });
});
