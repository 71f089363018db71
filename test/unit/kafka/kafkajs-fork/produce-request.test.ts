import { createRequire } from 'node:module';
import fc from 'fast-check';
import {
  encodeProduceRequest,
  varIntSize,
  type ProduceMessage,
  type ProduceRequestArgs,
} from '../../../../src/kafka/kafkajs-fork/produce-request';

// kafkajs's own encoder and helpers: the bytes to match.
const requireKafkajs = createRequire(__filename);
const kafkajsProduceV3 = requireKafkajs('kafkajs/src/protocol/requests/produce/v3/request') as (
  args: ProduceRequestArgs,
) => { encode(): Promise<{ buffer: Buffer }> };
const crc32c = requireKafkajs('kafkajs/src/protocol/recordBatch/crc32C') as (bytes: Buffer) => number;
const Long = requireKafkajs('kafkajs/src/utils/long') as { fromValue(v: unknown): unknown };
const Encoder = requireKafkajs('kafkajs/src/protocol/encoder') as { sizeOfVarInt(v: number): number };

const NOW_MS = 1_764_000_000_123;

async function kafkajsBytes(args: ProduceRequestArgs): Promise<Buffer> {
  const spy = jest.spyOn(Date, 'now').mockReturnValue(NOW_MS);
  try {
    return (await kafkajsProduceV3(args).encode()).buffer;
  } finally {
    spy.mockRestore();
  }
}

const request = (
  messages: ProduceMessage[],
  extra: Partial<ProduceRequestArgs> = {},
): ProduceRequestArgs => ({
  acks: -1,
  timeout: 30_000,
  topicData: [{ topic: 'hookline.attempts', partitions: [{ partition: 3, messages }] }],
  ...extra,
});

describe('encodeProduceRequest writes the bytes kafkajs 2.2.4 writes', () => {
  const bigValue = Buffer.alloc(70_000, 7);
  const cases: [string, ProduceRequestArgs][] = [
    ['no topics', { acks: 1, timeout: 5_000, topicData: [] }],
    ['a partition without messages', request([])],
    [
      'one Buffer record',
      request([{ key: Buffer.from('user-1'), value: Buffer.from([0, 0, 0, 0, 5, 1, 2]) }]),
    ],
    ['strings, multi-byte', request([{ key: 'clé-ü', value: 'événement 🚀' }])],
    ['a null key and a tombstone', request([{ key: null, value: null }, { value: Buffer.from('x') }])],
    [
      'headers: strings, Buffers, arrays, multi-byte keys',
      request([
        {
          key: 'k',
          value: 'v',
          headers: { 'hookline-attempt': '3', 'trace-ü': Buffer.from('abc'), multi: ['a', Buffer.from('b')] },
        },
      ]),
    ],
    ['an empty header array', request([{ key: 'k', value: 'v', headers: { none: [] } }])],
    [
      'values past one- and two-byte varint lengths',
      request([{ value: Buffer.alloc(64, 1) }, { value: bigValue }]),
    ],
    [
      '300 records: offset deltas of several bytes',
      request(Array.from({ length: 300 }, (_, i) => ({ key: `k${i}`, value: `value ${i}` }))),
    ],
    [
      'topics, partitions, an idempotent producer',
      {
        acks: -1,
        timeout: 30_000,
        producerId: Long.fromValue(4_000_123),
        producerEpoch: 2,
        topicData: [
          {
            topic: 'hookline.events',
            partitions: [
              { partition: 0, firstSequence: 17, messages: [{ key: 'a', value: '1' }] },
              { partition: 5, firstSequence: 2_147_000_000, messages: [{ key: 'b', value: '2' }] },
            ],
          },
          { topic: 'hookline.dlq', partitions: [{ partition: 1, messages: [{ key: 'c', value: '3' }] }] },
        ],
      },
    ],
    [
      'a transactional producer, acks 0',
      request([{ key: 'k', value: 'v' }], {
        acks: 0,
        transactionalId: 'tx-1',
        producerId: 9n,
        producerEpoch: 1,
      }),
    ],
    ['an empty transactional id', request([{ value: 'v' }], { transactionalId: '' })],
    ['a producer id as a string', request([{ value: 'v' }], { producerId: '123456789012' })],
  ];

  it.each(cases)('%s', async (_name, args) => {
    const bytes = encodeProduceRequest(args, NOW_MS, crc32c);
    expect(bytes).toBeDefined();
    expect(bytes!.equals(await kafkajsBytes(args))).toBe(true);
  });

  it('matches for any keys, values and headers', async () => {
    const bytesOrString = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.uint8Array({ maxLength: 300 }),
    );
    const message = fc.record(
      {
        key: fc.option(bytesOrString, { nil: null }),
        value: fc.option(bytesOrString, { nil: null }),
        headers: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(bytesOrString, fc.array(bytesOrString))),
      },
      { requiredKeys: ['value'] },
    );
    const asBuffers = (m: Record<string, unknown>): ProduceMessage => {
      const convert = (v: unknown): unknown =>
        v instanceof Uint8Array ? Buffer.from(v) : Array.isArray(v) ? v.map(convert) : v;
      const headers = m.headers as Record<string, unknown> | undefined;
      return {
        ...m,
        key: convert(m.key),
        value: convert(m.value),
        ...(headers && {
          headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, convert(v)])),
        }),
      };
    };
    await fc.assert(
      fc.asyncProperty(fc.array(message, { maxLength: 20 }), async (messages) => {
        const args = request(messages.map(asBuffers));
        const bytes = encodeProduceRequest(args, NOW_MS, crc32c);
        expect(bytes!.equals(await kafkajsBytes(args))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('encodeProduceRequest leaves to kafkajs', () => {
  it.each<[string, ProduceRequestArgs]>([
    ['compression', request([{ value: 'v' }], { compression: 1 })],
    ['a message with its own timestamp', request([{ value: 'v', timestamp: '1764000000000' }])],
    ['a number as a value', request([{ value: 42 }])],
    ['a null header value', request([{ value: 'v', headers: { h: null } }])],
    ['no acks', request([{ value: 'v' }], { acks: undefined })],
    ['a producer id that is not an integer', request([{ value: 'v' }], { producerId: 1.5 })],
  ])('%s', (_name, args) => {
    expect(encodeProduceRequest(args, NOW_MS, crc32c)).toBeUndefined();
  });
});

describe('varIntSize', () => {
  it.each([0, 1, -1, 63, 64, -64, -65, 8_191, 8_192, 1_048_575, 1_048_576, 2 ** 30 - 1, -(2 ** 31)])(
    'agrees with kafkajs for %d',
    (value) => {
      expect(varIntSize(value)).toBe(Encoder.sizeOfVarInt(value));
    },
  );
});
