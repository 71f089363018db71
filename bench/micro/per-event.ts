/**
 * Micro-benchmark of per-event work removed from the delivery path (issue 16), each step as it was
 * and as it is, on the bench's event (~600 bytes of JSON) and destination, no Kafka:
 *  - the webhook body: parsed objects serialised again, or the record's JSON text put in as it is;
 *  - the partition of a task's key: kafkajs's murmur2 (64-bit Long objects), or Math.imul;
 *  - the delivery log: a pino child logger per task (bindings serialised and redacted), or none;
 *  - the request's URL: parsed twice and its IP literal checked per request, or parsed once.
 * (The request's deadline, once an AbortController, is now the request handler's own timer; see
 * src/delivery/http/discarding-handler.ts.)
 * Rounds interleaved (before, after, before, after, ...), best of each, in µs of one call.
 *
 *   npx tsx bench/micro/per-event.ts [calls per round, default 50000] [rounds, default 7]
 */
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { Targets } from '../../src/delivery/http/targets';
import { partitionOfKey } from '../../src/kafka/partitioner';
import { createLogger } from '../../src/observability/logger';
import { eventRecordName, fromAvroRecord, toAvroRecord, type FreeFormTexts } from '../../src/records/event';
import { serialisePayload } from '../../src/routing/payload';
import { createAddressPolicy, literalAddress } from '../../src/security/address-policy';
import { normalizedEvent } from '../lib/events';

const calls = Number(process.argv[2] ?? 50_000);
const rounds = Number(process.argv[3] ?? 7);

const event = normalizedEvent('src_0123456789abcdef', 'bench-micro', 7);
const texts: FreeFormTexts = {};
const decoded = fromAvroRecord(eventRecordName('track'), toAvroRecord(event), texts);
const taskKeyText = `dst_0123456789abcdef01234567:${'user-7'}`;
const metadata: PartitionMetadata[] = Array.from({ length: 6 }, (_, partitionId) => ({
  partitionId,
  leader: 0,
  partitionErrorCode: 0,
  replicas: [0],
  isr: [0],
}));
const kafkajsPartitioner = Partitioners.DefaultPartitioner();
const logger = createLogger({ level: 'warn', destination: { write: () => undefined } });
const logFields = { messageId: 'bench-micro-7', sourceId: 'src_1', destinationId: 'dst_1', attempt: 1 };
const url = 'http://127.0.0.1:41234/hook';
const policy = createAddressPolicy({ allowedNetworks: ['127.0.0.0/8'] });
const targets = new Targets(policy);

let sink = 0;
/** [name, before, after, calls per delivered event] */
const pairs: [string, () => unknown, () => unknown, number][] = [
  ['webhook body', () => serialisePayload(decoded), () => serialisePayload(decoded, texts), 1],
  [
    'partition of a task key',
    () =>
      kafkajsPartitioner({
        topic: 't',
        partitionMetadata: metadata,
        message: { key: taskKeyText, value: null },
      }),
    () => partitionOfKey(taskKeyText, metadata.length),
    3, // the event (ingest), its task (router), its attempt record (worker)
  ],
  [
    'delivery log at level warn',
    () => logger.child(logFields).info({ urlIndex: 0, status: 200 }, 'delivery.attempted'),
    () => (logger.isLevelEnabled('info') ? logger.info({ ...logFields }, 'delivery.attempted') : undefined),
    1,
  ],
  [
    'request URL and SSRF literal check',
    () => {
      const parsed = new URL(url);
      const literal = literalAddress(parsed.href);
      return [parsed.origin, parsed.pathname + parsed.search, literal && policy.check(literal).allowed];
    },
    () => targets.of(url),
    1,
  ],
];

function round(fn: () => unknown): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) if (fn()) sink++;
  return Number(process.hrtime.bigint() - started) / calls / 1_000;
}

console.log(`µs per call, best of ${rounds} interleaved rounds of ${calls} calls`);
let saved = 0;
for (const [name, before, after, perEvent] of pairs) {
  round(before);
  round(after);
  let bestBefore = Infinity;
  let bestAfter = Infinity;
  for (let r = 0; r < rounds; r++) {
    bestBefore = Math.min(bestBefore, round(before));
    bestAfter = Math.min(bestAfter, round(after));
  }
  saved += (bestBefore - bestAfter) * perEvent;
  console.log(
    `${name.padEnd(36)} ${bestBefore.toFixed(2).padStart(7)} → ${bestAfter.toFixed(2).padStart(6)}  × ${perEvent} per delivered event`,
  );
}
console.log(
  `${'saved per delivered event'.padEnd(36)} ${saved.toFixed(2).padStart(7)} µs (${sink > 0 ? 'ok' : ''})`,
);
