import { KafkaUnavailableError, UnencodableRecordError } from '../../../src/core/errors';
import { silentLogger } from '../../../src/observability/logger';
import { Batcher, type BatcherOptions } from '../../../src/producer/batcher';
import { ClientClosedError, MessagesNotDeliveredError, QueueFullError } from '../../../src/producer/errors';
import { ManualTime, settle } from './manual-time';

interface Sent {
  batch: string[];
  ack: () => void;
  fail: (err: Error) => void;
}

/** A Batcher over a transport whose acknowledgements the test releases by hand. */
function setup(overrides: Partial<BatcherOptions<string>> = {}) {
  const time = new ManualTime();
  const sent: Sent[] = [];
  const errors: { err: Error; messages: number; willRetry: boolean; messageIds: string[] }[] = [];
  const batcher = new Batcher<string>({
    send: (batch) => new Promise<void>((resolve, reject) => sent.push({ batch, ack: resolve, fail: reject })),
    flushAt: 20,
    flushAfterMs: 5_000,
    maxQueuedMessages: 10_000,
    maxBatchBytes: 500 * 1024,
    clock: time,
    scheduler: time,
    logger: silentLogger(),
    onError: (err, info) => errors.push({ err, ...info }),
    ...overrides,
  });
  const add = (n: number, bytes = 10, prefix = 'm') => {
    for (let i = 0; i < n; i++) batcher.enqueue(`${prefix}${i}`, bytes, `id-${prefix}${i}`);
  };
  /** Acknowledges the next unacknowledged send and lets the batcher react. */
  const ackNext = async () => {
    sent.find((s) => !('done' in s))!.ack();
    Object.assign(
      sent.find((s) => !('done' in s))!,
      { done: true },
    );
    await settle();
  };
  return { time, sent, errors, batcher, add, ackNext };
}

describe('Batcher', () => {
  it('flushes on the flushAt-th call, not before', () => {
    const { sent, add, batcher } = setup();
    add(19);
    expect(sent).toHaveLength(0);
    expect(batcher.size).toBe(19);
    batcher.enqueue('last', 10);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.batch).toHaveLength(20);
    expect(sent[0]!.batch[19]).toBe('last');
  });

  it('flushes flushAfterMs after the last flush, driven by the injected scheduler', () => {
    const { time, sent, add } = setup();
    add(3);
    time.advance(4_999);
    expect(sent).toHaveLength(0);
    time.advance(1);
    expect(sent.map((s) => s.batch)).toEqual([['m0', 'm1', 'm2']]);
  });

  it('measures flushAfterMs from the last flush, whatever triggered it', async () => {
    const { time, sent, add, ackNext } = setup();
    time.advance(2_000);
    add(20); // flush by count at t=2s
    await ackNext();
    time.advance(1_000);
    add(1, 10, 'late'); // due 5 s after the last flush: t=7s, not t=8s
    expect(time.nextTimerAtMs).toBe(Date.parse('2024-05-01T12:00:07.000Z'));
    time.advance(3_999);
    expect(sent).toHaveLength(1);
    time.advance(1);
    expect(sent[1]!.batch).toEqual(['late0']);
  });

  it('arms no timer while nothing waits', () => {
    const { time, add, batcher } = setup({ flushAt: 2 });
    expect(time.pendingTimers).toBe(0);
    add(1);
    expect(time.pendingTimers).toBe(1);
    add(1, 10, 'second');
    expect(time.pendingTimers).toBe(0);
    batcher.stop();
    add(1, 10, 'after-stop');
    expect(time.pendingTimers).toBe(0);
  });

  it('with flushAt 1 sends each call on its own: one call, one send, even when calls queued meanwhile', async () => {
    const { sent, add, ackNext } = setup({ flushAt: 1 });
    add(1, 10, 'a');
    expect(sent.map((s) => s.batch)).toEqual([['a0']]);
    add(3, 10, 'b');
    expect(sent).toHaveLength(1);
    await ackNext();
    expect(sent.map((s) => s.batch)).toEqual([['a0'], ['b0']]);
    await ackNext();
    await ackNext();
    expect(sent.map((s) => s.batch)).toEqual([['a0'], ['b0'], ['b1'], ['b2']]);
  });

  it('never puts more than flushAt calls in one batch', async () => {
    const { sent, add, batcher, ackNext } = setup({ flushAt: 3 });
    add(3, 10, 'a'); // a full batch goes at once
    add(5, 10, 'b'); // meanwhile: 5 more, a flush of all of them
    void batcher.flush();
    await ackNext();
    await ackNext();
    expect(sent.map((s) => s.batch.length)).toEqual([3, 3, 2]);
  });

  it('flushes before a call would take the waiting calls over maxBatchBytes', () => {
    const { sent, add } = setup({ maxBatchBytes: 1_000 });
    add(3, 300);
    expect(sent).toHaveLength(0);
    add(1, 300, 'fourth');
    expect(sent.map((s) => s.batch)).toEqual([['m0', 'm1', 'm2']]);
  });

  it.each([
    // [items of bytes, overhead per batch, per item, limit] → batch sizes
    [{ items: 10, bytes: 300, batchOverhead: 0, itemOverhead: 0, max: 1_000 }, [3, 3, 3, 1]],
    [{ items: 10, bytes: 300, batchOverhead: 100, itemOverhead: 1, max: 1_000 }, [2, 2, 2, 2, 2]],
    [{ items: 3, bytes: 400, batchOverhead: 0, itemOverhead: 0, max: 1_000 }, [2, 1]],
    [{ items: 2, bytes: 5_000, batchOverhead: 0, itemOverhead: 0, max: 1_000 }, [1, 1]], // one item always goes
  ])('splits a flush into batches within maxBatchBytes: %j', async (c, sizes) => {
    const { sent, add, batcher, ackNext } = setup({
      flushAt: 1_000,
      maxBatchBytes: c.max,
      batchOverheadBytes: c.batchOverhead,
      itemOverheadBytes: c.itemOverhead,
    });
    add(c.items, c.bytes);
    const flushed = batcher.flush();
    for (let i = 0; i < sizes.length; i++) {
      expect(sent).toHaveLength(i + 1); // one batch in flight at a time
      await ackNext();
    }
    await flushed;
    expect(sent.map((s) => s.batch.length)).toEqual(sizes);
    expect(sent.flatMap((s) => s.batch)).toEqual(Array.from({ length: c.items }, (_, i) => `m${i}`));
  });

  it('resolves flush() only once everything queued before it is acknowledged', async () => {
    const { add, batcher, ackNext } = setup({ maxBatchBytes: 25 });
    await expect(batcher.flush()).resolves.toBeUndefined(); // nothing queued
    add(4);
    let done = false;
    const flushed = batcher.flush().then(() => (done = true));
    await ackNext();
    expect(done).toBe(false);
    await ackNext();
    await flushed;
    expect(batcher.size).toBe(0);
  });

  it('keeps a batch that failed retriably at the head, stops, and retries it at the next flush', async () => {
    const { time, sent, errors, add, batcher, ackNext } = setup({ maxBatchBytes: 25 });
    add(4);
    const flushed = batcher.flush();
    sent[0]!.fail(new KafkaUnavailableError('broker down'));
    await expect(flushed).rejects.toBeInstanceOf(KafkaUnavailableError);
    expect(errors).toEqual([
      {
        err: expect.any(KafkaUnavailableError),
        messages: 2,
        willRetry: true,
        messageIds: ['id-m0', 'id-m1'],
      },
    ]);
    expect(sent).toHaveLength(1); // nothing after the failed batch was sent
    expect(batcher.size).toBe(4);
    time.advance(5_000); // the timer retries
    expect(sent[1]!.batch).toEqual(['m0', 'm1']);
    Object.assign(sent[0]!, { done: true });
    await ackNext();
    const rest = batcher.flush();
    await ackNext();
    await rest;
    expect(sent.flatMap((s) => s.batch)).toEqual(['m0', 'm1', 'm0', 'm1', 'm2', 'm3']);
  });

  it('drops a batch that failed for good, reports it, and goes on with the next', async () => {
    const { sent, errors, add, batcher, ackNext } = setup({ maxBatchBytes: 25 });
    add(4);
    const flushed = batcher.flush();
    sent[0]!.fail(new UnencodableRecordError('bad'));
    Object.assign(sent[0]!, { done: true });
    await expect(flushed).rejects.toBeInstanceOf(UnencodableRecordError);
    await settle();
    expect(errors[0]).toMatchObject({ messages: 2, willRetry: false, messageIds: ['id-m0', 'id-m1'] });
    expect(batcher.dropped).toBe(2);
    expect(sent[1]!.batch).toEqual(['m2', 'm3']);
    await ackNext();
    expect(batcher.size).toBe(0);
  });

  it('refuses a call with QueueFullError while maxQueuedMessages are held, in flight included', async () => {
    const { add, batcher, ackNext } = setup({ maxQueuedMessages: 5, flushAt: 3 });
    add(5); // 3 in flight, 2 queued
    expect(() => batcher.enqueue('over', 10)).toThrow(QueueFullError);
    expect(() => batcher.assertRoom()).toThrow(
      expect.objectContaining({ retriable: true, code: 'queue_full' }),
    );
    await ackNext();
    expect(batcher.size).toBe(2);
    expect(() => batcher.enqueue('fits', 10)).not.toThrow();
  });

  it('idle() waits for the batch in flight', async () => {
    const { add, batcher, ackNext } = setup({ flushAt: 1 });
    await expect(batcher.idle()).resolves.toBeUndefined();
    add(1);
    let idle = false;
    const waiting = batcher.idle().then(() => (idle = true));
    await settle();
    expect(idle).toBe(false);
    await ackNext();
    await waiting;
  });

  describe('a batch not answered within ackTimeout', () => {
    const ackTimeout = { afterMs: 10_000, error: () => new KafkaUnavailableError('no ack within 10000 ms') };

    it('is reported to flush() and onError, but never sent again while its first send may still land', async () => {
      const { time, sent, errors, add, batcher, ackNext } = setup({ flushAt: 3, ackTimeout });
      add(3);
      const flushed = batcher.flush();
      time.advance(10_000);
      await expect(flushed).rejects.toThrow('no ack within 10000 ms');
      expect(errors).toEqual([
        {
          err: expect.any(KafkaUnavailableError),
          messages: 3,
          willRetry: true,
          messageIds: ['id-m0', 'id-m1', 'id-m2'],
        },
      ]);
      expect(batcher.unansweredCount).toBe(3);
      await expect(batcher.flush()).rejects.toBeInstanceOf(KafkaUnavailableError); // at once
      add(1, 10, 'later');
      time.advance(60_000); // flush timers fall due: still one send
      expect(sent).toHaveLength(1);
      await ackNext(); // the first send lands after all: delivered once, counted delivered
      expect(batcher.dropped).toBe(0);
      expect(batcher.unansweredCount).toBe(0);
      expect(sent.map((s) => s.batch)).toEqual([['m0', 'm1', 'm2'], ['later0']]);
      await ackNext();
      expect(batcher.size).toBe(0);
    });

    it('is put back only once its send has failed', async () => {
      const { time, sent, add, batcher, errors } = setup({ flushAt: 3, ackTimeout });
      add(3);
      time.advance(10_000);
      sent[0]!.fail(new KafkaUnavailableError('broker away'));
      Object.assign(sent[0]!, { done: true });
      await settle();
      expect(errors.map((e) => e.willRetry)).toEqual([true, true]);
      expect(batcher.size).toBe(3);
      time.advance(5_000);
      expect(sent.map((s) => s.batch)).toEqual([
        ['m0', 'm1', 'm2'],
        ['m0', 'm1', 'm2'],
      ]);
    });

    it('arms no ack timer without the option', async () => {
      const { time, add } = setup({ flushAt: 3 });
      add(3);
      expect(time.pendingTimers).toBe(0);
    });
  });

  describe('flush() once stopped', () => {
    it('resolves when nothing is held', async () => {
      const { batcher } = setup();
      batcher.stop();
      await expect(batcher.flush()).resolves.toBeUndefined();
    });

    it('rejects at once with MessagesNotDeliveredError when calls are still held', async () => {
      const { add, batcher, sent } = setup();
      add(3);
      batcher.stop();
      await expect(batcher.flush()).rejects.toMatchObject({
        name: 'MessagesNotDeliveredError',
        count: 3,
        cause: expect.any(ClientClosedError),
      });
      expect(sent).toHaveLength(0);
    });

    it('rejects a flush() that was still waiting when the batcher stopped', async () => {
      const { add, batcher, sent } = setup({ flushAt: 2 });
      add(3); // a batch of 2 in flight, 1 queued
      const flushed = batcher.flush();
      batcher.stop();
      await expect(flushed).rejects.toBeInstanceOf(MessagesNotDeliveredError);
      sent[0]!.ack(); // a late answer changes nothing
      await settle();
    });
  });

  describe('waitForRoom()', () => {
    /** Whether the promise settled once pending callbacks (the wake-up's turn included) ran. */
    const settledYet = async (promise: Promise<unknown>) => {
      let done = false;
      void promise.then(() => (done = true));
      await settle();
      await settle();
      return done;
    };

    it('resolves at once while the queue has room', async () => {
      const { add, batcher } = setup({ maxQueuedMessages: 5, flushAt: 3 });
      add(4);
      await expect(settledYet(batcher.waitForRoom())).resolves.toBe(true);
    });

    it('waits while the queue is full, and wakes once a batch is acknowledged and the next one sent', async () => {
      const { add, batcher, sent, ackNext } = setup({ maxQueuedMessages: 6, flushAt: 3 });
      add(6); // 3 in flight, 3 queued
      let sentWhenWoken = -1;
      const room = batcher.waitForRoom().then(() => (sentWhenWoken = sent.length));
      expect(await settledYet(room)).toBe(false);
      await ackNext();
      await room;
      expect(sentWhenWoken).toBe(2); // the next batch went out before the caller woke
      expect(() => batcher.enqueue('fits', 10)).not.toThrow();
    });

    it('wakes when a batch that failed for good is dropped', async () => {
      const { add, batcher, sent } = setup({ maxQueuedMessages: 3, flushAt: 3 });
      add(3);
      const room = batcher.waitForRoom();
      sent[0]!.fail(new Error('record too large'));
      expect(await settledYet(room)).toBe(true);
      expect(batcher.size).toBe(0);
    });

    it('keeps waiting while a batch that failed retriably is queued again, until it is sent', async () => {
      const { add, batcher, sent, time, ackNext } = setup({ maxQueuedMessages: 3, flushAt: 3 });
      add(3);
      const room = batcher.waitForRoom();
      sent[0]!.fail(new KafkaUnavailableError('broker away'));
      Object.assign(sent[0]!, { done: true });
      expect(await settledYet(room)).toBe(false);
      time.advance(5_000); // the flush timer sends it again
      expect(sent).toHaveLength(2);
      await ackNext();
      expect(await settledYet(room)).toBe(true);
    });

    it('wakes every waiter when the batcher stops', async () => {
      const { add, batcher } = setup({ maxQueuedMessages: 3, flushAt: 3 });
      add(3);
      const rooms = [batcher.waitForRoom(), batcher.waitForRoom()];
      batcher.stop();
      await expect(settledYet(Promise.all(rooms).then(() => undefined))).resolves.toBe(true);
    });
  });
});
