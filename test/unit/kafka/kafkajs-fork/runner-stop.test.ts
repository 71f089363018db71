import { createRequire } from 'node:module';
import { fixRunnerStop, STOP_WAITS_FOR_JOIN_MS } from '../../../../src/kafka/kafkajs-fork/runner-stop';

// kafkajs's own class, as its consumers use it.
const Runner = createRequire(__filename)('kafkajs/src/consumer/runner') as new (options: object) => {
  running: boolean;
  start(): Promise<unknown>;
  stop(): Promise<void>;
};

const silent = { debug() {}, info() {}, warn() {}, error() {}, namespace: () => silent };

/**
 * A consumer group whose join (and, with `holdConnect`, connect) ends when the test says so; it
 * records what the runner asked.
 */
function fakeGroup({ holdConnect = false } = {}) {
  let endJoin: (err?: Error) => void = () => undefined;
  let endConnect: () => void = () => undefined;
  const calls: string[] = [];
  const group = {
    groupId: 'g',
    memberId: null as string | null,
    connect: () =>
      new Promise<void>((resolve) => {
        calls.push('connect');
        if (holdConnect) endConnect = resolve;
        else resolve();
      }),
    joinAndSync: () =>
      new Promise<void>((resolve, reject) => {
        calls.push('join');
        endJoin = (err) => (err ? reject(err) : resolve());
      }),
    leave: async () => void calls.push('leave'),
    getNodeIds: () => [],
  };
  return { group, calls, endJoin: (err?: Error) => endJoin(err), endConnect: () => endConnect() };
}

function newRunner(group: object, crashes: unknown[]) {
  const runner = new Runner({
    logger: silent,
    consumerGroup: group,
    instrumentationEmitter: { emit() {} },
    concurrency: 1,
    eachBatch: async () => undefined,
    heartbeatInterval: 3_000,
    onCrash: (err: unknown) => void crashes.push(err),
    retry: { retries: 0 },
  }) as InstanceType<typeof Runner> & { scheduleFetchManager(): void };
  const fetching: number[] = [];
  runner.scheduleFetchManager = () => void fetching.push(1); // no fetch loop in a unit test
  return { runner, fetching };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A runner started and then stopped while it joins (or, with `holdConnect`, while it connects);
 * `stopped()` says whether stop() resolved.
 */
async function stoppedWhileJoining(options: { holdConnect?: boolean } = {}) {
  const { group, calls, endJoin, endConnect } = fakeGroup(options);
  const crashes: unknown[] = [];
  const { runner, fetching } = newRunner(group, crashes);
  const started = runner.start();
  await flush();
  let stopped = false;
  const stopping = runner.stop().then(() => (stopped = true));
  await flush();
  return { started, stopping, stopped: () => stopped, calls, endJoin, endConnect, fetching, runner, crashes };
}

beforeAll(() => {
  // 'applied' here, or 'already applied' when another test file of this worker applied it first.
  expect(['applied', 'already applied']).toContain(fixRunnerStop().status);
});

describe('kafkajs Runner with fixRunnerStop', () => {
  it('starts as before when nobody stops it: joins, then runs', async () => {
    const { group, calls, endJoin } = fakeGroup();
    const { runner, fetching } = newRunner(group, []);
    const started = runner.start();
    await flush();
    endJoin();
    await started;
    expect(runner.running).toBe(true);
    expect(fetching).toHaveLength(1);
    expect(calls).toEqual(['connect', 'join']);
  });

  it('a stop during the join waits for it, then the member leaves instead of fetching', async () => {
    const { started, stopping, stopped, calls, endJoin, fetching, runner } = await stoppedWhileJoining();
    expect(stopped()).toBe(false); // kafkajs 2.2.4 returned here, and the join went on alone
    endJoin();
    await Promise.all([started, stopping]);
    expect(runner.running).toBe(false);
    expect(fetching).toHaveLength(0);
    expect(calls).toEqual(['connect', 'join', 'leave']);
  });

  it('a join that fails after a stop is not reported as a crash (nothing to restart)', async () => {
    const { started, stopping, endJoin, crashes } = await stoppedWhileJoining();
    endJoin(new Error('coordinator not available'));
    await Promise.all([started, stopping]);
    expect(crashes).toEqual([]);
  });

  it('a stop while connecting returns at once, and the runner never joins', async () => {
    const { started, stopping, stopped, calls, endConnect, fetching, crashes } = await stoppedWhileJoining({
      holdConnect: true,
    });
    expect(stopped()).toBe(true); // no member can exist yet: nothing to wait for
    endConnect();
    await Promise.all([started, stopping]);
    expect(calls).toEqual(['connect']);
    expect(fetching).toHaveLength(0);
    expect(crashes).toEqual([]);
  });

  it('a join that fails with no stop is a crash, as before', async () => {
    const { group, endJoin } = fakeGroup();
    const crashes: unknown[] = [];
    const { runner } = newRunner(group, crashes);
    const started = runner.start();
    await flush();
    const err = new Error('coordinator not available');
    endJoin(err);
    await started;
    expect(crashes).toEqual([err]);
  });

  it('the crash handler may stop the runner without waiting for itself', async () => {
    const { group, endJoin } = fakeGroup();
    const holder: { runner?: InstanceType<typeof Runner> } = {};
    const stops: string[] = [];
    const { runner } = newRunner(group, []);
    holder.runner = runner;
    // kafkajs's own crash handler disconnects the consumer, which stops its runner.
    (runner as unknown as { onCrash: () => Promise<void> }).onCrash = async () => {
      await holder.runner!.stop();
      stops.push('stopped');
    };
    const started = runner.start();
    await flush();
    endJoin(new Error('lost the coordinator'));
    await started;
    expect(stops).toEqual(['stopped']);
  });

  it('a stop waits at most STOP_WAITS_FOR_JOIN_MS for a join that does not end', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      const { started, stopping, stopped, calls, endJoin, fetching } = await stoppedWhileJoining();
      jest.advanceTimersByTime(STOP_WAITS_FOR_JOIN_MS - 1);
      await flush();
      expect(stopped()).toBe(false);
      jest.advanceTimersByTime(1);
      await stopping;
      // The join ending later still leaves rather than fetching.
      endJoin();
      await started;
      expect(fetching).toHaveLength(0);
      expect(calls).toEqual(['connect', 'join', 'leave']);
    } finally {
      jest.useRealTimers();
    }
  });

  it('is applied once, and reports a kafkajs it does not match instead of patching it', () => {
    expect(fixRunnerStop().status).toBe('already applied');
    const changed = { prototype: { start: async function start() {}, stop: async function stop() {} } };
    const kafkajs = (version: string) =>
      ((id: string) => (id === 'kafkajs/package.json' ? { version } : changed)) as unknown as NodeRequire;
    expect(fixRunnerStop(kafkajs('2.2.5'))).toEqual({
      patch: 'runner-stop',
      status: 'not applied',
      reason: 'kafkajs 2.2.5 is installed',
    });
    expect(fixRunnerStop(kafkajs('2.2.4'))).toEqual({
      patch: 'runner-stop',
      status: 'not applied',
      reason: 'kafkajs Runner.prototype.scheduleFetchManager is not a function',
    });
    expect(changed.prototype.start.name).toBe('start');
  });
});
