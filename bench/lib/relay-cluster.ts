/**
 * The recorded relay (lib/e2e-floor.ts) in processes of its own, as Hookline runs its
 * HOOKLINE_WORKERS children: a node:cluster primary that only forks, and `RELAY_PROCESSES`
 * children sharing one listening port (the primary passes connections round robin) and one consumer
 * group; one child keeps the attempt index. Started by lib/relay-processes.ts, which it tells its
 * base URL once every child listens; SIGTERM stops it.
 */
import cluster from 'node:cluster';
import { connectAvro } from '../../src/avro/connect';
import { loadConfig } from '../../src/config/config';
import { createKafka } from '../../src/kafka/client';
import { createLogger } from '../../src/observability/logger';
import { EventCodec } from '../../src/records/event';
import { TEST_SECRETS_KEY } from '../../test/support/app';
import { startE2eFloor } from './e2e-floor';
import { rawProducer } from './raw-kafka';

/** What the relay is told through its environment (see RelayProcessesOptions). */
const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`relay-cluster: ${name} is not set`);
  return value;
};

interface Ready {
  baseUrl: string;
}

async function primary(): Promise<void> {
  const count = Number(env('RELAY_PROCESSES'));
  let baseUrl = '';
  // One at a time: the first creates the topics and keeps the attempt index.
  for (let i = 0; i < count; i++) {
    const worker = cluster.fork({ RELAY_ATTEMPT_INDEX: i === 0 ? 'true' : 'false' });
    baseUrl = await new Promise<string>((resolve, reject) => {
      worker.once('message', (m: Ready) => resolve(m.baseUrl));
      worker.once('exit', (code) => reject(new Error(`relay process exited (${code}) before it listened`)));
    });
  }
  process.send?.({ baseUrl } satisfies Ready);
  process.once('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    cluster.disconnect(() => process.exit(0));
  });
}

async function child(): Promise<void> {
  const brokers = env('KAFKA_BROKERS').split(',');
  const logger = createLogger({ level: 'error' });
  const kafka = createKafka({
    brokers,
    clientId: 'hookline-bench-relay',
    logger,
    patches: 'hookline-process',
  });
  const producer = await rawProducer(kafka);
  const admin = kafka.admin();
  await admin.connect();
  const avro = await connectAvro({ url: env('SCHEMA_REGISTRY_URL'), logger });
  const config = loadConfig({ ...process.env, HOOKLINE_SECRETS_KEY: TEST_SECRETS_KEY });
  const floor = await startE2eFloor({
    kind: 'recorded',
    kafka,
    producer,
    prefix: env('RELAY_PREFIX'),
    url: env('RELAY_URL'),
    concurrency: Number(env('RELAY_CONCURRENCY')),
    codec: new EventCodec(avro),
    sourceId: env('RELAY_SOURCE_ID'),
    secret: env('RELAY_SECRET'),
    config,
    avro,
    admin,
    attemptIndex: process.env.RELAY_ATTEMPT_INDEX === 'true',
  });
  process.send?.({ baseUrl: floor.baseUrl } satisfies Ready);
  process.once('SIGTERM', () => {
    void (async () => {
      await floor.stop();
      await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
      process.exit(0);
    })();
  });
}

void (cluster.isPrimary ? primary() : child()).catch((err: unknown) => {
  process.stderr.write(`relay-cluster: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
