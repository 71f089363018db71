import { KafkaUnavailableError, WorkNotHeldError } from '../../../src/core/errors';
import type { ConsumedMessage } from '../../../src/kafka/consumer';
import type { DeliveryTask } from '../../../src/records/delivery-task';
import { FirstAttempts, type LocalDelivery } from '../../../src/routing/first-attempts';
import { deliveryTask } from '../../support/tasks';

function task(destinationId: string): DeliveryTask {
  return deliveryTask({ taskId: `s:m:${destinationId}`, destinationId });
}

function consumed(overrides: Partial<ConsumedMessage> = {}): ConsumedMessage {
  return {
    topic: 'p.events',
    partition: 0,
    message: { offset: '7', key: null, value: null, timestamp: '0', attributes: 0, headers: {} },
    ...overrides,
  } as ConsumedMessage;
}

const nothingDelivered: LocalDelivery['deliveredBefore'] = async () => new Map<number, string[]>();

/** A LocalDelivery whose outcome per destination is set by the test (resolved when absent). */
function lanes(outcomes: Record<string, unknown[]> = {}, deliveredBefore = nothingDelivered) {
  const submitted: string[] = [];
  const local: LocalDelivery = {
    submit: async (t) => {
      submitted.push(t.destinationId);
      const failure = outcomes[t.destinationId]?.shift();
      if (failure) throw failure;
    },
    deliveredBefore,
  };
  return { local, submitted };
}

describe('FirstAttempts', () => {
  it('resolves once every task is done, and lets the next event of the user start once all are submitted', async () => {
    const order: string[] = [];
    const finish = new Map<string, () => void>();
    const local: LocalDelivery = {
      submit: (t) => {
        order.push(`submit ${t.destinationId}`);
        return new Promise<void>((resolve) => finish.set(t.destinationId, resolve));
      },
      deliveredBefore: nothingDelivered,
    };
    const message = consumed({ nextMayStart: () => order.push('next') });
    let done = false;
    const run = new FirstAttempts(local).run(message, [task('a'), task('b')]).then(() => (done = true));
    await new Promise(setImmediate);
    expect(order).toEqual(['submit a', 'submit b', 'next']);
    finish.get('b')!();
    await new Promise(setImmediate);
    expect(done).toBe(false); // a is still running
    finish.get('a')!();
    await run;
    expect(done).toBe(true);
  });

  it('resolves once the one task of an event is done, letting the next event start once it is submitted', async () => {
    const order: string[] = [];
    let finish = () => {};
    const local: LocalDelivery = {
      submit: (t) => {
        order.push(`submit ${t.destinationId}`);
        return new Promise<void>((resolve) => (finish = resolve));
      },
      deliveredBefore: nothingDelivered,
    };
    let done = false;
    const run = new FirstAttempts(local)
      .run(consumed({ nextMayStart: () => order.push('next') }), [task('a')])
      .then(() => (done = true));
    await new Promise(setImmediate);
    expect([order, done]).toEqual([['submit a', 'next'], false]);
    finish();
    await run;
    expect(done).toBe(true);
  });

  it('keeps the one task of an event that failed for the retry, and forgets it once done', async () => {
    const failure = new KafkaUnavailableError('no ack');
    const { local, submitted } = lanes({ a: [failure] });
    const attempts = new FirstAttempts(local);
    const message = consumed();
    await expect(attempts.run(message, [task('a')])).rejects.toBe(failure);
    expect(attempts.leftOf(message)?.map((t) => t.destinationId)).toEqual(['a']);
    await attempts.run(message, attempts.leftOf(message)!);
    expect(submitted).toEqual(['a', 'a']);
    expect(attempts.leftOf(message)).toBeUndefined();
  });

  it('declines an event of one task that was not started for want of the partition', async () => {
    const { local } = lanes({ a: [new KafkaUnavailableError('no ack'), new WorkNotHeldError()] });
    const attempts = new FirstAttempts(local);
    const message = consumed();
    await expect(attempts.run(message, [task('a')])).rejects.toBeInstanceOf(KafkaUnavailableError);
    await expect(attempts.run(message, attempts.leftOf(message)!)).rejects.toBeInstanceOf(WorkNotHeldError);
    expect(attempts.leftOf(message)).toBeUndefined(); // handled again from the start
  });

  it('passes the partition check to the lanes', async () => {
    const seen: (boolean | undefined)[] = [];
    const local: LocalDelivery = {
      submit: async (_t, message) => void seen.push(message.held?.()),
      deliveredBefore: nothingDelivered,
    };
    await new FirstAttempts(local).run(consumed({ held: () => false }), [task('a')]);
    expect(seen).toEqual([false]);
  });

  it('keeps only the failed tasks for the retry: the delivered ones are not sent twice', async () => {
    const failure = new KafkaUnavailableError('no ack');
    const { local, submitted } = lanes({ b: [failure] });
    const attempts = new FirstAttempts(local);
    const message = consumed();
    await expect(attempts.run(message, [task('a'), task('b'), task('c')])).rejects.toBe(failure);
    expect(attempts.leftOf(message)?.map((t) => t.destinationId)).toEqual(['b']);
    await attempts.run(message, attempts.leftOf(message)!);
    expect(submitted).toEqual(['a', 'b', 'c', 'b']);
    expect(attempts.leftOf(message)).toBeUndefined();
  });

  it('declines the whole event when one task was not started for want of the partition', async () => {
    const { local } = lanes({ b: [new WorkNotHeldError(), undefined] });
    const attempts = new FirstAttempts(local);
    const message = consumed();
    await expect(attempts.run(message, [task('a'), task('b')])).rejects.toBeInstanceOf(WorkNotHeldError);
    expect(attempts.leftOf(message)).toBeUndefined(); // handled again from the start
  });

  it('skips the destinations a crashed previous owner delivered the event to, once', async () => {
    const deliveredBefore = jest.fn(async (topic: string, partition: number) =>
      topic === 'p.events' && partition === 0 ? new Map([[7, ['b']]]) : new Map<number, string[]>(),
    );
    const { local, submitted } = lanes({}, deliveredBefore);
    const attempts = new FirstAttempts(local);
    await expect(attempts.takeOver('p.events', 0)).resolves.toEqual([]); // no event done as a whole
    await attempts.run(consumed({ partition: 1 }), [task('a'), task('b')]); // another partition
    await attempts.run(consumed(), [task('a'), task('b'), task('c')]);
    await attempts.run(consumed(), [task('a'), task('b')]); // handled again later: nothing to skip
    expect(submitted).toEqual(['a', 'b', 'a', 'c', 'a', 'b']);
  });

  it('resolves at once when the previous owner reached every destination', async () => {
    const { local, submitted } = lanes({}, async () => new Map([[7, ['a', 'b']]]));
    const attempts = new FirstAttempts(local);
    await attempts.takeOver('p.events', 0);
    const next = jest.fn();
    await attempts.run(consumed({ nextMayStart: next }), [task('a'), task('b')]);
    expect(submitted).toEqual([]);
    expect(next).toHaveBeenCalled();
  });
});
