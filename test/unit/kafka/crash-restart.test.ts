import { EventEmitter } from 'node:events';
import type { Consumer } from 'kafkajs';
import {
  CRASH_RESTART_BACKOFF,
  CRASH_STREAK_MS,
  restartAfterCrashes,
} from '../../../src/kafka/crash-restart';
import { createLogger } from '../../../src/observability/logger';

const CRASH = 'consumer.crash';

/** A kafkajs consumer whose crashes the test emits, recording connect/disconnect calls. */
function fakeConsumer() {
  const emitter = new EventEmitter();
  const calls: string[] = [];
  const consumer = {
    events: { CRASH },
    on: (name: string, listener: (event: unknown) => void) => emitter.on(name, listener),
    connect: jest.fn(async () => void calls.push('connect')),
    disconnect: jest.fn(async () => void calls.push('disconnect')),
    stop: jest.fn(async () => void calls.push('stop')),
  };
  const crash = (restart: boolean, error: Error = new TypeError('inside kafkajs')) =>
    emitter.emit(CRASH, { payload: { error, groupId: 'g', restart } });
  return { consumer: consumer as unknown as Consumer, calls, crash };
}

function logged() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

/** Lets the restart's awaited calls run after a timer fired. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('restartAfterCrashes', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('connects and runs the consumer again after a crash kafkajs does not restart from', async () => {
    const { consumer, calls, crash } = fakeConsumer();
    const { logger, lines } = logged();
    const run = jest.fn(async () => void calls.push('run'));
    const restart = restartAfterCrashes({
      consumer,
      stopping: () => false,
      run,
      context: { groupId: 'g' },
      logger,
    });
    crash(false);
    expect(restart.crashes).toBe(1);
    await jest.advanceTimersByTimeAsync(CRASH_RESTART_BACKOFF.initialDelayMs - 1);
    expect(calls).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    await settle();
    expect(calls).toEqual(['connect', 'run']);
    expect(lines.map((l) => l.msg)).toEqual([
      'consumer crashed; restarting it',
      'consumer restarted after a crash',
    ]);
    expect(lines[0]).toMatchObject({ groupId: 'g', err: 'inside kafkajs', restartInMs: 1_000, level: 50 });
    expect(String(lines[0]!.stack)).toContain('TypeError: inside kafkajs');
  });

  it('logs the stack of what kafkajs wrapped', async () => {
    const { consumer, crash } = fakeConsumer();
    const { logger, lines } = logged();
    restartAfterCrashes({ consumer, stopping: () => false, run: async () => {}, context: {}, logger });
    const root = new TypeError("Cannot read properties of undefined (reading '0')");
    crash(false, new Error(root.message, { cause: root })); // as KafkaJSNonRetriableError wraps it
    expect(lines[0]).toMatchObject({ err: root.message });
    expect(String(lines[0]!.stack)).toMatch(/^TypeError: Cannot read properties/);
  });

  it('leaves a crash kafkajs restarts from to kafkajs, and does nothing once its owner stops', async () => {
    const { consumer, calls, crash } = fakeConsumer();
    let stopping = false;
    const run = jest.fn(async () => undefined);
    restartAfterCrashes({ consumer, stopping: () => stopping, run, context: {}, logger: logged().logger });
    crash(true);
    stopping = true;
    crash(false);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([]);
    expect(run).not.toHaveBeenCalled();
  });

  it('waits longer after each failed restart (1 s, 2 s, 4 s…)', async () => {
    const { consumer, calls, crash } = fakeConsumer();
    let failures = 2;
    const run = jest.fn(async () => {
      calls.push('run');
      if (failures-- > 0) throw new Error('the broker is away');
    });
    restartAfterCrashes({ consumer, stopping: () => false, run, context: {}, logger: logged().logger });
    crash(false);
    await jest.advanceTimersByTimeAsync(1_000);
    await settle();
    expect(run).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1_999);
    expect(run).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    await settle();
    expect(run).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(4_000);
    await settle();
    expect(run).toHaveBeenCalledTimes(3);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(run).toHaveBeenCalledTimes(3); // the third run worked
    expect(calls.filter((c) => c === 'connect')).toHaveLength(3);
  });

  it('drops a restart waiting its turn when cancelled', async () => {
    const { consumer, calls, crash } = fakeConsumer();
    const run = jest.fn(async () => undefined);
    const restart = restartAfterCrashes({
      consumer,
      stopping: () => false,
      run,
      context: {},
      logger: logged().logger,
    });
    crash(false);
    restart.cancel();
    crash(false); // after the cancel: nothing is scheduled
    await jest.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([]);
    expect(restart.crashes).toBe(1);
  });

  it('disconnects again, and does not run, when its owner began to stop while it connected', async () => {
    const { consumer, calls, crash } = fakeConsumer();
    let stopping = false;
    (consumer.connect as jest.Mock).mockImplementation(async () => {
      calls.push('connect');
      stopping = true; // the owner's stop ran its disconnect meanwhile
    });
    const run = jest.fn(async () => undefined);
    restartAfterCrashes({ consumer, stopping: () => stopping, run, context: {}, logger: logged().logger });
    crash(false);
    await jest.advanceTimersByTimeAsync(1_000);
    await settle();
    expect(calls).toEqual(['connect', 'disconnect']);
    expect(run).not.toHaveBeenCalled();
  });

  it('backs off while the consumer crashes again soon after each restart, and starts over later', async () => {
    const { consumer, calls, crash } = fakeConsumer();
    const { logger, lines } = logged();
    let crashWhileJoining = true;
    const run = jest.fn(async () => {
      calls.push('run');
      // kafkajs's onCrash ends run() quietly: the crash is its CRASH event, not a rejection.
      if (crashWhileJoining) crash(false);
    });
    restartAfterCrashes({ consumer, stopping: () => false, run, context: {}, logger });
    crash(false);
    const waits = () =>
      lines.filter((l) => l.msg === 'consumer crashed; restarting it').map((l) => l.restartInMs);
    await jest.advanceTimersByTimeAsync(1_000);
    await settle();
    await jest.advanceTimersByTimeAsync(2_000);
    await settle();
    expect(waits()).toEqual([1_000, 2_000, 4_000]);
    expect(lines.some((l) => l.msg === 'consumer restarted after a crash')).toBe(false);

    crashWhileJoining = false;
    await jest.advanceTimersByTimeAsync(4_000);
    await settle();
    expect(lines.filter((l) => l.msg === 'consumer restarted after a crash')).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(CRASH_STREAK_MS - 1);
    crash(false); // within a minute of the restart: the same streak
    expect(waits().at(-1)).toBe(8_000);
    await jest.advanceTimersByTimeAsync(8_000);
    await settle();
    await jest.advanceTimersByTimeAsync(CRASH_STREAK_MS);
    crash(false); // after a minute of running: a new streak
    expect(waits().at(-1)).toBe(1_000);
  });

  it('stops the consumer again when kafkajs decided to restart it as its owner stopped', async () => {
    jest.useRealTimers();
    const { consumer, calls, crash } = fakeConsumer();
    let stopping = false;
    restartAfterCrashes({
      consumer,
      stopping: () => stopping,
      run: async () => {},
      context: {},
      logger: logged().logger,
    });
    crash(true); // running: kafkajs's restart is wanted
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([]);
    stopping = true;
    crash(true); // kafkajs arms its restart timer just after this event: stopping again clears it
    expect(calls).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['stop']);
  });
});
