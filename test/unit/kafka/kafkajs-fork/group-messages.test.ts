import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import fc from 'fast-check';
import type { Message, PartitionMetadata } from 'kafkajs';
import {
  groupMessagesPerPartition,
  preloadGroupMessages,
  type GroupArgs,
} from '../../../../src/kafka/kafkajs-fork/group-messages';

const requireKafkajs = createRequire(__filename);
const kafkajsGrouping = requireKafkajs('kafkajs/src/producer/groupMessagesPerPartition') as (
  args: GroupArgs,
) => Record<number, Message[]>;

const metadata = (partitions: number): PartitionMetadata[] =>
  Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));

/** Runs a grouping with a partitioner that answers from `partitions` and records its calls. */
function run(
  group: (args: GroupArgs) => Record<number, Message[]>,
  messages: Message[],
  partitions: number[],
) {
  const calls: unknown[] = [];
  let next = 0;
  const result = group({
    topic: 't',
    partitionMetadata: metadata(6),
    messages,
    partitioner: (args) => {
      calls.push(args);
      return partitions[next++ % partitions.length]!;
    },
  });
  return { result, calls };
}

describe('groupMessagesPerPartition', () => {
  it('gives what kafkajs gives, calling the partitioner alike', () => {
    const messages = fc.array(
      fc.record({ key: fc.string(), value: fc.string() }).map((m): Message => m),
      { maxLength: 300 },
    );
    const partitions = fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(messages, partitions, (msgs, parts) => {
        const ours = run(groupMessagesPerPartition, msgs, parts);
        const theirs = run(kafkajsGrouping, msgs, parts);
        expect(ours.result).toStrictEqual(theirs.result);
        expect(ours.calls).toStrictEqual(theirs.calls);
        // The very message objects, in their order.
        for (const [p, list] of Object.entries(ours.result))
          list.forEach((m, i) => expect(m).toBe(theirs.result[Number(p)]![i]));
      }),
      { numRuns: 300 },
    );
  });

  it('gives nothing without partition metadata, as kafkajs does', () => {
    const args = { topic: 't', partitionMetadata: [], messages: [{ value: 'v' }], partitioner: () => 0 };
    expect(groupMessagesPerPartition(args)).toStrictEqual(kafkajsGrouping(args));
  });
});

describe('preloadGroupMessages', () => {
  const FILE = '/modules/kafkajs/src/producer/groupMessagesPerPartition.js';
  const fakeRequire = (version: string, cache: Record<string, unknown> = {}) =>
    Object.assign((id: string) => (id === 'kafkajs/package.json' ? { version } : undefined), {
      resolve: () => FILE,
      cache,
    }) as unknown as NodeRequire;

  it('puts Hookline’s function in the module cache under kafkajs’s file, once', () => {
    const requireFrom = fakeRequire('2.2.4');
    expect(preloadGroupMessages(requireFrom, true).status).toBe('applied');
    const cached = requireFrom.cache[FILE]!;
    expect(cached.exports).toBe(groupMessagesPerPartition);
    expect(cached.loaded).toBe(true);
    expect(cached.filename).toBe(FILE);
    expect(preloadGroupMessages(requireFrom, true).status).toBe('already applied');
  });

  it('is not applied, too late, once kafkajs has loaded its own', () => {
    const requireFrom = fakeRequire('2.2.4', { [FILE]: { exports: kafkajsGrouping } });
    expect(preloadGroupMessages(requireFrom, true)).toEqual({
      patch: 'group-messages',
      status: 'not applied',
      reason: expect.stringContaining('kafkajs was loaded before src/kafka/kafkajs-fork/preload.ts'),
    });
    expect(requireFrom.cache[FILE]!.exports).toBe(kafkajsGrouping);
  });

  it('leaves any other kafkajs release alone, and says so', () => {
    const requireFrom = fakeRequire('2.3.0');
    expect(preloadGroupMessages(requireFrom, true)).toEqual({
      patch: 'group-messages',
      status: 'not applied',
      reason: 'kafkajs 2.3.0 is installed',
    });
    expect(requireFrom.cache[FILE]).toBeUndefined();
  });

  it('is what a Hookline process’s kafkajs producer uses (a real node process; jest has its own modules)', () => {
    const root = path.resolve(__dirname, '../../../..');
    const script = [
      "require('./src/kafka/kafkajs-fork/preload');",
      "require('./src/kafka/client');",
      "const groupMessagesPreload = require('./src/kafka/kafkajs-fork').applyKafkajsFixes()[0].status;",
      "const { groupMessagesPerPartition } = require('./src/kafka/kafkajs-fork/group-messages');",
      "const file = require.resolve('kafkajs/src/producer/groupMessagesPerPartition');",
      "const sendMessages = require.cache[require.resolve('kafkajs/src/producer/sendMessages')];",
      'console.log(JSON.stringify({ groupMessagesPreload, ours: require.cache[file].exports === groupMessagesPerPartition, loaded: !!sendMessages }));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
      cwd: root,
      timeout: 30_000,
    }).toString();
    expect(JSON.parse(out)).toEqual({ groupMessagesPreload: 'already applied', ours: true, loaded: true });
  });
});
