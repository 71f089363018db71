import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { createLogger } from '../../src/observability/logger';
import { launchLocalStack } from '../../tools/devstack';
import { resolveCacheDir } from '../../tools/devstack/paths';
import { eventually } from '../support/eventually';

/**
 * The development stack (tools/devstack): the cluster the global setup handed out works, and the
 * stack never leaves a java process behind — not when its owner is SIGKILLed, not on Ctrl-C, not
 * after `npm run stack -- down`. Stacks are started in child processes (`cli.ts run`, `up`), exactly
 * as a developer or a crashed test run would leave them.
 */
const execFileAsync = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'tools/devstack/cli.ts');
/** Starting a stack next to the global one on 2 cores takes 10-25 s; a first download more. */
const STACK_START_TIMEOUT_MS = 180_000;
/** Supervisors poll every 500 ms; Kafka's graceful shutdown takes a few seconds; SIGKILL after 10 s. */
const PROCESSES_GONE_TIMEOUT_MS = 30_000;

jest.setTimeout(300_000);

/** `pgrep -af` lines of every process (supervisor or java) whose command line names the run dir. */
async function processesOf(runDir: string): Promise<string[]> {
  try {
    const { stdout } = await execFileAsync('pgrep', ['-af', `hookline.run.dir=${runDir}`]);
    return stdout.split('\n').filter((line) => line.trim() !== '');
  } catch (err) {
    if ((err as { code?: number }).code === 1) return []; // pgrep: nothing matched.
    throw err;
  }
}

const javaLines = (lines: string[]): string[] => lines.filter((line) => /^\d+ \S*java /.test(line));

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(command: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['--import', 'tsx', CLI, command], {
      cwd: ROOT,
      env,
      timeout: STACK_START_TIMEOUT_MS,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...extra };
  delete env.KAFKA_BROKERS;
  delete env.SCHEMA_REGISTRY_URL;
  return env;
}

interface ForegroundStack {
  child: ChildProcess;
  runDir: string;
}

/** Starts `cli.ts run` (a stack owned by that child process) and waits until it prints its run dir. */
async function startForegroundStack(children: ChildProcess[]): Promise<ForegroundStack> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'run'], {
    cwd: ROOT,
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const runDir = await eventually(
    () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`cli.ts run exited (${child.exitCode ?? child.signalCode}) before ready:\n${stderr}`);
      }
      return /^HOOKLINE_STACK_RUN_DIR=(.+)$/m.exec(stdout)?.[1];
    },
    { timeoutMs: STACK_START_TIMEOUT_MS, intervalMs: 200, what: 'the child stack to be ready' },
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}\n--- child stderr ---\n${stderr}`);
  });
  return { child, runDir };
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('devstack', () => {
  const children: ChildProcess[] = [];

  afterEach(async () => {
    // A failed test must not leave its stack running: killing the owner is enough (supervisors).
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  test('the cluster from the global setup answers: Kafka with Hookline topics, and the registry', async () => {
    const brokers = (process.env.KAFKA_BROKERS ?? '').split(',');
    const registryUrl = process.env.SCHEMA_REGISTRY_URL ?? '';
    expect(brokers[0]).toMatch(/:\d+$/);

    const admin = new Kafka({ clientId: 'devstack-test', brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const topics = await admin.listTopics();
      if (process.env.HOOKLINE_CLUSTER_KIND !== 'env') {
        expect(topics).toEqual(
          expect.arrayContaining(['hookline.events', 'hookline.catalog', 'hookline.dlq']),
        );
      }
    } finally {
      await admin.disconnect();
    }

    const response = await fetch(`${registryUrl}/subjects`);
    expect(response.status).toBe(200);
  });

  test('a stack whose owner is SIGKILLed leaves no java process behind and removes its run dir', async () => {
    const { child, runDir } = await startForegroundStack(children);
    expect(javaLines(await processesOf(runDir))).toHaveLength(2); // Kafka and the registry.

    child.kill('SIGKILL');
    await exitOf(child);

    await eventually(async () => (await processesOf(runDir)).length === 0, {
      timeoutMs: PROCESSES_GONE_TIMEOUT_MS,
      intervalMs: 100,
      what: `no process of ${runDir} left`,
    });
    await eventually(() => !existsSync(runDir), { timeoutMs: 10_000, what: 'the run dir to be deleted' });
  });

  test('Ctrl-C (SIGINT) stops the stack before the owner exits', async () => {
    const { child, runDir } = await startForegroundStack(children);
    expect(javaLines(await processesOf(runDir))).toHaveLength(2);

    child.kill('SIGINT');

    // The process still dies of the signal (re-raised once the stack is down).
    expect(await exitOf(child)).toEqual({ code: null, signal: 'SIGINT' });
    // Stopped before the process died of the signal: nothing to wait for.
    expect(await processesOf(runDir)).toEqual([]);
    expect(existsSync(runDir)).toBe(false);
  });

  test('up starts a detached stack that outlives the CLI, status reports it, down stops it', async () => {
    // A cache dir of its own (sharing the downloads) so a developer's own `up` stack is not touched.
    const cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hookline-cli-test-'));
    const realDist = path.join(resolveCacheDir({}), 'dist');
    await fs.mkdir(realDist, { recursive: true });
    await fs.symlink(realDist, path.join(cacheDir, 'dist'));
    // Owned by this test process: a crashed test run does not leave the detached stack behind.
    const env = childEnv({ HOOKLINE_CACHE_DIR: cacheDir, HOOKLINE_STACK_OWNER_PID: String(process.pid) });
    try {
      const up = await cli('up', env);
      expect(up).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/^KAFKA_BROKERS=127\.0\.0\.1:\d+$/m),
      });
      expect(up.stdout).toMatch(/^SCHEMA_REGISTRY_URL=http:\/\/127\.0\.0\.1:\d+\/apis\/ccompat\/v7$/m);
      const state = JSON.parse(await fs.readFile(path.join(cacheDir, 'stack', 'state.json'), 'utf8')) as {
        runDir: string;
      };
      // The CLI has exited; the stack is still there.
      expect(javaLines(await processesOf(state.runDir))).toHaveLength(2);

      const status = await cli('status', env);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain('status=up');
      expect(status.stdout).toContain(up.stdout.split('\n')[0]);

      const again = await cli('up', env);
      expect(again).toMatchObject({ code: 0, stdout: up.stdout });

      expect((await cli('down', env)).code).toBe(0);
      expect(await processesOf(state.runDir)).toEqual([]);
      expect(existsSync(state.runDir)).toBe(false);

      const after = await cli('status', env);
      expect({ code: after.code, stdout: after.stdout }).toEqual({ code: 1, stdout: 'status=down\n' });
    } finally {
      await cli('down', env);
      await fs.rm(cacheDir, { recursive: true, force: true });
    }
  });

  test('a broker killed with SIGKILL restarts on the same port and data: its records are still there', async () => {
    const logger = createLogger({ name: 'devstack-test', level: 'warn' });
    const stack = await launchLocalStack({ logger, readyTimeoutMs: STACK_START_TIMEOUT_MS });
    try {
      const { kafka } = stack;
      const client = new Kafka({
        clientId: 'devstack-test',
        brokers: kafka.brokers,
        logLevel: logLevel.NOTHING,
      });
      const producer = client.producer();
      await producer.connect();
      await producer.send({ topic: 'hookline.events', acks: -1, messages: [{ key: 'k', value: 'kept' }] });
      await producer.disconnect();
      const before = kafka.process;

      await kafka.kill();
      expect(before.exitInfo()).toBeDefined(); // the JVM is gone, not stopped gracefully
      expect(before.isRunning()).toBe(false);
      await kafka.restart();

      expect(kafka.process).not.toBe(before);
      expect(stack.kafkaBrokers).toEqual(kafka.brokers); // the same address: clients just reconnect
      const consumer = client.consumer({ groupId: 'devstack-restart', maxWaitTimeInMs: 100 });
      const values: string[] = [];
      await consumer.connect();
      try {
        await consumer.subscribe({ topic: 'hookline.events', fromBeginning: true });
        await consumer.run({ eachMessage: async ({ message }) => void values.push(String(message.value)) });
        await eventually(() => values.length > 0, {
          timeoutMs: 60_000,
          what: 'the record written before the kill',
        });
      } finally {
        await consumer.disconnect();
      }
      expect(values).toEqual(['kept']);
    } finally {
      await stack.stop();
    }
    expect(existsSync(stack.runDir)).toBe(false);
  });
});
