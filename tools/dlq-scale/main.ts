/**
 * `npm run dlq-scale [-- --records=N] [--destinations=D] [--payload-bytes=B] [--built] [--app-env=KEY=VALUE ...]`
 *
 * The dead-letter index at scale (issue 13): writes N dead letters (1,000,000 by default) to the
 * dead-letter topic of a fresh prefix on a real Kafka (`resolveCluster`: KAFKA_BROKERS, a running
 * `npm run stack -- up`, or a local stack started for the run), starts Hookline (src/process/main.ts) as a
 * child process on that prefix (with `--built`, the compiled `dist/src/process/main.js` of `npm run build`,
 * as the image runs it), and measures: the time until the index has read the topic, the
 * process's resident memory (RSS now, and its peak), and the latency of the admin API's
 * dead-letter queries. Then it kills the process with SIGKILL, starts it again and measures the
 * rebuild. Prints a Markdown table; deletes the prefix's topics at the end.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { ensureTopics, topicNames } from '../../src/kafka/topics';
import { createLogger } from '../../src/observability/logger';
import { resolveCluster } from '../devstack';
import { memoryMb, startHookline, timeCalls, type HooklineProcess, type Latency } from './probe';
import { deadLetter, destinationId, fillDeadLetterTopic, type FillOptions } from './write';

const DAY_MS = 86_400_000;
const INDEX_DEADLINE_MS = 15 * 60_000;

interface Args {
  records: number;
  destinations: number;
  payloadBytes: number;
  built: boolean;
  appEnv: Record<string, string>;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { records: 1_000_000, destinations: 50, payloadBytes: 400, built: false, appEnv: {} };
  for (const arg of argv) {
    const [flag = '', ...rest] = arg.split('=');
    const value = rest.join('=');
    if (flag === '--records') args.records = Number(value);
    else if (flag === '--destinations') args.destinations = Number(value);
    else if (flag === '--payload-bytes') args.payloadBytes = Number(value);
    else if (flag === '--built' && value === '') args.built = true;
    else if (flag === '--app-env' && value.includes('=')) {
      const [key = '', ...v] = value.split('=');
      args.appEnv[key] = v.join('=');
    } else throw new Error(`unknown argument ${arg}; see the comment at the top of tools/dlq-scale/main.ts`);
  }
  if (![args.records, args.destinations, args.payloadBytes].every((n) => Number.isInteger(n) && n > 0)) {
    throw new Error('--records, --destinations and --payload-bytes must be positive integers');
  }
  return args;
}

const startedMs = Date.now();
const log = (line: string) =>
  process.stderr.write(
    `[dlq-scale ${((Date.now() - startedMs) / 1_000).toFixed(0).padStart(4)} s] ${line}\n`,
  );

/** The queries an operator makes, each timed 15 times in a row. */
async function measureQueries(app: HooklineProcess, fill: FillOptions, nowMs: number): Promise<Latency[]> {
  const total = (json: unknown) => `total ${(json as { total: number }).total}`;
  const day = new Date(nowMs - 10 * DAY_MS);
  const named = (run: number) => deadLetter((run * 7_919) % fill.records, fill, nowMs).taskId;
  const get = (path: string) => () => app.call('GET', path);
  return [
    await timeCalls('list, newest 100', 15, get('/api/v1/dead-letters?limit=100'), total),
    await timeCalls(
      'list, one destination',
      15,
      get(`/api/v1/dead-letters?destinationId=${destinationId(7)}`),
      total,
    ),
    await timeCalls('list, one reason', 15, get('/api/v1/dead-letters?reason=http_410'), total),
    await timeCalls(
      'list, one day',
      15,
      get(`/api/v1/dead-letters?since=${day.toISOString()}&until=${new Date(+day + DAY_MS).toISOString()}`),
      total,
    ),
    await timeCalls(
      'get by id',
      15,
      (run) => app.call('GET', `/api/v1/dead-letters/${encodeURIComponent(named(run))}`),
      (json) => `attempts ${(json as { attempts: number }).attempts}`,
    ),
    await timeCalls(
      'redrive 10 named (planned, skipped: destination deleted)',
      5,
      (run) =>
        app.call('POST', '/api/v1/dead-letters/redrive', {
          taskIds: Array.from({ length: 10 }, (_, i) => named(run * 10 + i)),
        }),
      (json) => `skipped ${(json as { skipped: unknown[] }).skipped.length}`,
    ),
  ];
}

function table(rows: string[][]): string {
  return rows.map((r) => `| ${r.join(' | ')} |`).join('\n');
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  const logger = createLogger({
    name: 'hookline-dlq-scale',
    level: 'warn',
    destination: pino.destination(2),
  });
  const cluster = await resolveCluster({ logger, watchParentPid: process.pid });
  log(`cluster: ${cluster.kind}${cluster.started ? ' (started for this run)' : ''}`);
  const prefix = `dlqscale-${randomBytes(3).toString('hex')}`;
  const kafka = new Kafka({
    clientId: 'hookline-dlq-scale',
    brokers: cluster.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  const apps: HooklineProcess[] = [];
  try {
    await ensureTopics({
      admin,
      prefix,
      defaultPartitions: 1,
      replicationFactor: -1,
      retryScheduleMs: [10_000],
      logger,
    });
    const fill: FillOptions = {
      kafkaBrokers: cluster.kafkaBrokers,
      schemaRegistryUrl: cluster.schemaRegistryUrl,
      topic: topicNames(prefix).dlq,
      records: args.records,
      destinations: args.destinations,
      payloadBytes: args.payloadBytes,
      redriveEvery: 100,
      spanMs: 30 * DAY_MS,
      log,
    };
    const nowMs = Date.now();
    const { bytes } = await fillDeadLetterTopic(fill);
    const env = {
      KAFKA_BROKERS: cluster.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: cluster.schemaRegistryUrl,
      HOOKLINE_TOPIC_PREFIX: prefix,
      HOOKLINE_TOPIC_PARTITIONS: '1',
      HOOKLINE_RETRY_SCHEDULE: '10s',
      HOOKLINE_SECRETS_KEY: randomBytes(32).toString('base64'),
      HOOKLINE_LOG_LEVEL: 'error',
      // The restarted process waits for the killed one's group members to time out (router, worker).
      HOOKLINE_KAFKA_SESSION_TIMEOUT: '6s',
      ...args.appEnv,
    };
    const token = randomBytes(16).toString('hex');

    log('starting Hookline; waiting for the dead-letter index');
    const first = await startHookline(env, token, args.built);
    apps.push(first);
    const firstIndex = await first.indexed(INDEX_DEADLINE_MS);
    await sleep(2_000);
    const settled = memoryMb(first.pid);
    const heap = await first.heapMb();
    log(`indexed in ${(firstIndex.indexMs / 1_000).toFixed(1)} s; RSS ${settled.rssMb.toFixed(0)} MB`);
    const latencies = await measureQueries(first, fill, nowMs);
    const afterQueries = memoryMb(first.pid);

    log('kill -9, then a new process rebuilds the index');
    await first.kill('SIGKILL');
    const second = await startHookline(env, token, args.built);
    apps.push(second);
    const secondIndex = await second.indexed(INDEX_DEADLINE_MS);
    await sleep(2_000);
    const restarted = memoryMb(second.pid);
    const check = await second.call('GET', '/api/v1/dead-letters?limit=1');

    const mb = (n: number) => `${n.toFixed(0)} MB`;
    process.stdout.write(
      `\n${args.records.toLocaleString('en')} dead letters (${(bytes / 1e6).toFixed(0)} MB of Avro on the topic, ` +
        `${args.destinations} destinations, ${args.payloadBytes}-byte payloads, every 100th redriven; ` +
        `${args.built ? 'compiled dist/src/process/main.js' : 'src/process/main.ts under tsx'})\n\n` +
        table([
          ['Measure', 'Value'],
          ['---', '---'],
          [
            'Index built (start → dead-letter listing answers)',
            `${(firstIndex.indexMs / 1_000).toFixed(1)} s`,
          ],
          ['RSS once indexed', mb(settled.rssMb)],
          [
            '… of which V8 heap in use / external (Buffers)',
            `${mb(heap.heapUsedMb)} / ${mb(heap.externalMb)}`,
          ],
          ['RSS after the queries', mb(afterQueries.rssMb)],
          ['Peak RSS (VmHWM, start, indexing and queries)', mb(afterQueries.peakMb)],
          [
            'Rebuild after kill -9',
            `${(secondIndex.indexMs / 1_000).toFixed(1)} s, RSS ${mb(restarted.rssMb)}, peak ${mb(restarted.peakMb)}`,
          ],
          ['Listing after the rebuild', `total ${(check.json as { total: number }).total}`],
        ]) +
        '\n\n' +
        table([
          ['Query', 'Median', 'Max', 'Runs', 'Answer'],
          ['---', '---', '---', '---', '---'],
          ...latencies.map((l) => [
            l.query,
            `${l.medianMs.toFixed(0)} ms`,
            `${l.maxMs.toFixed(0)} ms`,
            String(l.runs),
            l.answer,
          ]),
        ]) +
        '\n',
    );
    return 0;
  } catch (err) {
    for (const app of apps) process.stderr.write(`--- hookline output ---\n${app.outputTail()}\n`);
    throw err;
  } finally {
    for (const app of apps) await app.kill('SIGTERM');
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${prefix}.`));
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    await cluster.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `dlq-scale failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
