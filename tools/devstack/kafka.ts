import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { type ComponentOptions, baseJvmArgs, retryOnBindFailure, waitUntilReady } from './component';
import { StackError } from './errors';
import { isKafkaReady } from './kafka-client';
import { LOCAL_HOST, findFreePorts } from './ports';
import { type SupervisedProcess, tailFile } from './process';

export interface KafkaNode {
  brokers: string[];
  port: number;
  controllerPort: number;
  /** The broker's JVM under its supervisor; a new one after each restart(). */
  readonly process: SupervisedProcess;
  /**
   * A crash, for chaos tests: SIGKILLs the broker's JVM (no controlled shutdown, no flush) and
   * resolves once it is gone. Its data dir and ports stay as they were.
   */
  kill(): Promise<void>;
  /**
   * Starts the broker again on the same ports and data dir (no format) and resolves once it
   * answers metadata again, as after a machine crash and reboot. Only after kill().
   */
  restart(): Promise<void>;
}

/** Storage formatting is one short JVM run (about 1 s here). */
const FORMAT_TIMEOUT_MS = 60_000;

/**
 * Starts a single-node KRaft Kafka (broker and controller in one JVM) on free loopback ports:
 * writes server.properties and log4j.properties, formats the storage, starts the broker and waits
 * until kafkajs gets metadata listing it.
 */
export async function startKafka(options: ComponentOptions & { libDir: string }): Promise<KafkaNode> {
  return retryOnBindFailure({
    attempts: 3,
    logger: options.logger,
    what: 'kafka',
    start: () => startOnce(options),
  });
}

async function startOnce(options: ComponentOptions & { libDir: string }): Promise<KafkaNode> {
  const { dir, libDir, java, runDir, spawn, logger, readyTimeoutMs } = options;
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(path.join(dir, 'data'), { recursive: true });
  const [port, controllerPort] = await findFreePorts({ count: 2 });
  const propertiesFile = path.join(dir, 'server.properties');
  const log4jFile = path.join(dir, 'log4j.properties');
  await fs.writeFile(
    propertiesFile,
    serverProperties({ port, controllerPort, logDir: path.join(dir, 'data') }),
  );
  await fs.writeFile(log4jFile, log4jProperties({ logFile: path.join(dir, 'server.log') }));
  const jvm = [
    ...baseJvmArgs({ runDir }),
    `-Dlog4j.configuration=file:${log4jFile}`,
    '-cp',
    path.join(libDir, '*'),
  ];

  const format = spawn({
    name: 'kafka-format',
    command: java,
    args: [...jvm, 'kafka.tools.StorageTool', 'format', '-t', clusterId(), '-c', propertiesFile],
    cwd: dir,
    logFile: path.join(dir, 'format.log'),
    cleanupDir: dir,
  });
  const formatted = await Promise.race([
    format.exited,
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), FORMAT_TIMEOUT_MS).unref()),
  ]);
  if (formatted?.code !== 0) {
    await format.stop();
    throw new StackError(
      `kafka storage format failed (${formatted ? `exit ${formatted.code}` : 'timed out'})`,
      {
        stage: 'start',
        logTail: await format.logTail({ lines: 30 }),
      },
    );
  }

  const startBroker = (): Promise<SupervisedProcess> =>
    spawnBroker({ spawn, java, jvm, dir, propertiesFile, brokers, logger, readyTimeoutMs });
  const brokers = [`${LOCAL_HOST}:${port}`];
  let broker = await startBroker();
  return {
    brokers,
    port,
    controllerPort,
    get process() {
      return broker;
    },
    kill: async () => {
      await broker.crash();
    },
    restart: async () => {
      if (broker.isRunning()) throw new StackError('kafka is running; kill() it first', { stage: 'start' });
      broker = await startBroker();
    },
  };
}

/** Runs the broker on an existing, formatted data dir and waits until kafkajs gets metadata from it. */
async function spawnBroker(options: {
  spawn: ComponentOptions['spawn'];
  java: string;
  jvm: string[];
  dir: string;
  propertiesFile: string;
  brokers: string[];
  logger: ComponentOptions['logger'];
  readyTimeoutMs: number;
}): Promise<SupervisedProcess> {
  const { spawn, java, jvm, dir, propertiesFile, brokers, logger, readyTimeoutMs } = options;
  const broker = spawn({
    name: 'kafka',
    command: java,
    args: [...jvm, 'kafka.Kafka', propertiesFile],
    cwd: dir,
    logFile: path.join(dir, 'stdout.log'),
    cleanupDir: dir,
  });
  try {
    await waitUntilReady({
      process: broker,
      what: 'kafka',
      timeoutMs: readyTimeoutMs,
      probe: () => isKafkaReady({ brokers, logger }),
    });
  } catch (err) {
    const error = await withServerLogTail({ err, serverLog: path.join(dir, 'server.log') });
    await broker.stop();
    throw error;
  }
  return broker;
}

/** Kafka logs to server.log via log4j; stdout only has JVM errors. Show both when it fails. */
async function withServerLogTail(options: { err: unknown; serverLog: string }): Promise<unknown> {
  if (!(options.err instanceof StackError)) return options.err;
  const serverTail = await tailFile({ file: options.serverLog, lines: 40 });
  if (!serverTail.trim()) return options.err;
  const firstLine = options.err.message.split('\n')[0];
  return new StackError(firstLine, {
    stage: options.err.stage,
    logTail: `${options.err.logTail ?? ''}\n--- ${options.serverLog} ---\n${serverTail}`,
    cause: options.err.cause,
  });
}

/** A Kafka cluster id: 16 random bytes, base64url (what `StorageTool random-uuid` prints), without a JVM run. */
function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function serverProperties(options: { port: number; controllerPort: number; logDir: string }): string {
  const { port, controllerPort, logDir } = options;
  const props: Record<string, string | number> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@${LOCAL_HOST}:${controllerPort}`,
    listeners: `PLAINTEXT://${LOCAL_HOST}:${port},CONTROLLER://${LOCAL_HOST}:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${LOCAL_HOST}:${port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    'log.dirs': logDir,
    'offsets.topic.replication.factor': 1,
    // 50 partitions by default; a handful is plenty on a dev node and makes the first group join faster.
    'offsets.topic.num.partitions': 5,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'transaction.state.log.num.partitions': 5,
    'group.initial.rebalance.delay.ms': 0,
    'auto.create.topics.enable': 'false',
    'default.replication.factor': 1,
    'min.insync.replicas': 1,
  };
  return Object.entries(props)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n')
    .concat('\n');
}

function log4jProperties(options: { logFile: string }): string {
  return [
    'log4j.rootLogger=INFO, file',
    'log4j.appender.file=org.apache.log4j.FileAppender',
    `log4j.appender.file.File=${options.logFile}`,
    'log4j.appender.file.layout=org.apache.log4j.PatternLayout',
    'log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n',
    'log4j.logger.kafka.request.logger=WARN',
    'log4j.logger.state.change.logger=WARN',
    'log4j.logger.kafka.log.LogCleaner=WARN',
    'log4j.logger.org.apache.kafka.storage=WARN',
    '',
  ].join('\n');
}
