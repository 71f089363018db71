import { execFileSync } from 'node:child_process';
import { KafkaJSConnectionError, KafkaJSSASLAuthenticationError } from 'kafkajs';
import { silentLogger } from '../../../src/observability/logger';
import { startThroughOutage } from '../../../src/process/start-up';
import { projectRoot } from '../../support/project-root';

/** A start-up whose attempts fail with the given errors in turn, then succeed; on a fake clock. */
function harness(failures: Error[], opts: { outageSeenAtMs?: number; stopAfterAttempts?: number } = {}) {
  let now = 0;
  const attemptsAtMs: number[] = [];
  const run = startThroughOutage({
    start: async () => {
      attemptsAtMs.push(now);
      now += 2_000; // each attempt takes 2 s
      const err = failures[attemptsAtMs.length - 1];
      if (err) throw err;
      return 'started';
    },
    outage: { seenSince: (ms) => opts.outageSeenAtMs !== undefined && opts.outageSeenAtMs >= ms },
    stopping: () => opts.stopAfterAttempts !== undefined && attemptsAtMs.length >= opts.stopAfterAttempts,
    logger: silentLogger(),
    clock: { now: () => now },
    sleep: async (ms) => {
      now += ms;
    },
  });
  return { run, attemptsAtMs };
}

const reset = () => new KafkaJSConnectionError('Connection error: write ECONNRESET');

describe('start-up through a broker outage', () => {
  it('starts again after a failure caused by the brokers going away, waiting longer each time', async () => {
    const { run, attemptsAtMs } = harness([reset(), reset(), reset()]);
    await expect(run).resolves.toBe('started');
    // 2 s per attempt, then waits of 1 s, 2 s, 4 s.
    expect(attemptsAtMs).toEqual([0, 3_000, 7_000, 13_000]);
  });

  it('counts a failure of any kind as an outage when a broker was seen going away during its attempt', async () => {
    const bug = new TypeError("Cannot read properties of null (reading 'topicMetadata')");
    await expect(harness([bug], { outageSeenAtMs: 1_000 }).run).resolves.toBe('started');
    // The same failure with no broker trouble seen since its attempt began: thrown at once.
    const quiet = harness([bug, bug], { outageSeenAtMs: 1_000 });
    await expect(quiet.run).rejects.toThrow('topicMetadata');
    expect(quiet.attemptsAtMs).toEqual([0, 3_000]);
    const noOutage = harness([new TypeError('a bug')]);
    await expect(noOutage.run).rejects.toThrow('a bug');
    expect(noOutage.attemptsAtMs).toHaveLength(1);
  });

  it('fails at once on bad credentials', async () => {
    const sasl = new (KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error)(
      'SASL PLAIN authentication failed',
    );
    const { run, attemptsAtMs } = harness([sasl], { outageSeenAtMs: 0 });
    await expect(run).rejects.toThrow('SASL');
    expect(attemptsAtMs).toHaveLength(1);
  });

  it('gives up about a minute after the first failure', async () => {
    const { run, attemptsAtMs } = harness(Array.from({ length: 100 }, reset));
    await expect(run).rejects.toThrow('ECONNRESET');
    // The first failure is at 2 s (the end of the first attempt); attempts then every 7 s at most.
    const last = attemptsAtMs[attemptsAtMs.length - 1]!;
    expect(last).toBeLessThanOrEqual(2_000 + 60_000);
    expect(last + 2_000 + 5_000).toBeGreaterThan(2_000 + 60_000); // one more would start past the budget
  });

  it('makes no further attempt once the process is asked to stop', async () => {
    const { run, attemptsAtMs } = harness([reset(), reset()], { stopAfterAttempts: 1 });
    await expect(run).rejects.toThrow('ECONNRESET');
    expect(attemptsAtMs).toHaveLength(1);
  });
});

describe('start-up between attempts', () => {
  it('holds the process open while it waits, though the failed attempt closed everything', () => {
    // A process with nothing else alive: only start-up's wait can keep it running to the second
    // attempt. An unreferenced timer there let it exit with code 0 instead of starting.
    const script = [
      "const { KafkaJSConnectionError } = require('kafkajs');",
      "const { startThroughOutage } = require('./src/process/start-up');",
      "const { silentLogger } = require('./src/observability/logger');",
      'let attempts = 0;',
      'startThroughOutage({',
      '  start: async () => {',
      "    if (++attempts === 1) throw new KafkaJSConnectionError('Connection error: connect ECONNREFUSED');",
      "    return 'started';",
      '  },',
      '  outage: { seenSince: () => true },',
      '  stopping: () => false,',
      '  logger: silentLogger(),',
      '}).then((result) => console.log(result, attempts));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
      cwd: projectRoot(),
      timeout: 30_000,
    }).toString();
    expect(out.trim()).toBe('started 2');
  });
});
