import { createRequire } from 'node:module';
import fc from 'fast-check';
import { useFastFetchDecoding } from '../../../../src/kafka/kafkajs-fork/fetch-decoding';
import { decodeFetchResponse } from '../../../../src/kafka/kafkajs-fork/fetch-response';

// kafkajs's own encoders build the responses; its own v11 decoder is the result to match.
const requireKafkajs = createRequire(__filename);
interface KafkajsEncoder {
  buffer: Buffer;
  writeInt16(v: number): KafkajsEncoder;
  writeInt32(v: number): KafkajsEncoder;
  writeInt64(v: number | string): KafkajsEncoder;
  writeString(v: string | null): KafkajsEncoder;
  writeBuffer(v: Buffer): KafkajsEncoder;
  writeInt8(v: number): KafkajsEncoder;
  writeVarInt(v: number): KafkajsEncoder;
  writeVarLong(v: number): KafkajsEncoder;
  writeVarIntBytes(v: Buffer | null): KafkajsEncoder;
  writeVarIntArray(v: KafkajsEncoder[]): KafkajsEncoder;
  writeEncoder(v: KafkajsEncoder): KafkajsEncoder;
  size(): number;
}
const Encoder = requireKafkajs('kafkajs/src/protocol/encoder') as new () => KafkajsEncoder;
const { RecordBatch } = requireKafkajs('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (args: object) => Promise<{ buffer: Buffer }>;
};
const Header = requireKafkajs('kafkajs/src/protocol/recordBatch/header/v0') as (
  header: object,
) => KafkajsEncoder;
const Long = requireKafkajs('kafkajs/src/utils/long') as { fromValue(v: unknown): unknown };
const { Types: Compression } = requireKafkajs('kafkajs/src/protocol/message/compression') as {
  Types: { None: number; GZIP: number };
};
const kafkajsV11 = requireKafkajs('kafkajs/src/protocol/requests/fetch/v11/response') as {
  decode(raw: Buffer): Promise<unknown>;
};

type Headers = Record<string, Buffer | null | (Buffer | null)[]>;
interface RecordSpec {
  offsetDelta: number;
  timestampDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers?: Headers;
}
interface BatchSpec {
  firstOffset: number | string;
  firstTimestamp?: number;
  maxTimestamp?: number;
  records: RecordSpec[];
  transactional?: boolean;
  gzip?: boolean;
  /** Attribute bits kafkajs's encoder does not write: 0x08 log-append time, 0x20 control. */
  extraAttributes?: number;
  producerId?: number;
}
interface PartitionSpec {
  partition: number;
  batches: BatchSpec[];
  /** Bytes cut from the end of the record set (a fetch ending in a partial batch). */
  cut?: number;
  highWatermark?: number | string;
  aborted?: { producerId: number; firstOffset: number }[];
  /** A record set written as is (e.g. a legacy message set). */
  recordSet?: Buffer;
}

const ATTRIBUTES_AT = 21; // firstOffset 8, length 4, leader epoch 4, magic 1, CRC 4

async function recordBatch(spec: BatchSpec): Promise<Buffer> {
  const bytes = (
    await RecordBatch({
      compression: spec.gzip ? Compression.GZIP : Compression.None,
      firstOffset: Long.fromValue(spec.firstOffset),
      firstTimestamp: spec.firstTimestamp ?? 1_764_000_000_000,
      maxTimestamp: spec.maxTimestamp ?? 1_764_000_000_999,
      lastOffsetDelta: spec.records.length - 1,
      transactional: spec.transactional ?? false,
      producerId: Long.fromValue(spec.producerId ?? 4_000),
      producerEpoch: 2,
      firstSequence: 17,
      partitionLeaderEpoch: 3,
      records: spec.records.map(encodeRecord),
    })
  ).buffer;
  if (spec.extraAttributes)
    bytes.writeInt16BE(bytes.readInt16BE(ATTRIBUTES_AT) | spec.extraAttributes, ATTRIBUTES_AT);
  return bytes;
}

/**
 * A record as kafkajs's record encoder writes it, with kafkajs's own primitives, except that a
 * header value may be null (kafkajs cannot send one; other clients can).
 */
function encodeRecord(r: RecordSpec): KafkajsEncoder {
  const headers = Object.entries(r.headers ?? {}).flatMap(([key, value]) =>
    (Array.isArray(value) ? value : [value]).map((v) => Header({ key, value: v })),
  );
  const body = new Encoder()
    .writeInt8(0)
    .writeVarLong(r.timestampDelta)
    .writeVarInt(r.offsetDelta)
    .writeVarIntBytes(r.key)
    .writeVarIntBytes(r.value)
    .writeVarIntArray(headers);
  return new Encoder().writeVarInt(body.size()).writeEncoder(body);
}

async function fetchResponse(topics: { name: string; partitions: PartitionSpec[] }[]): Promise<Buffer> {
  const out = new Encoder().writeInt32(0).writeInt16(0).writeInt32(77).writeInt32(topics.length);
  for (const topic of topics) {
    out.writeString(topic.name).writeInt32(topic.partitions.length);
    for (const p of topic.partitions) {
      const batches = await Promise.all(p.batches.map(recordBatch));
      const whole = p.recordSet ?? Buffer.concat(batches);
      const recordSet = whole.subarray(0, whole.length - (p.cut ?? 0));
      out
        .writeInt32(p.partition)
        .writeInt16(0)
        .writeInt64(p.highWatermark ?? 1_000)
        .writeInt64(990)
        .writeInt64(0)
        .writeInt32((p.aborted ?? []).length);
      for (const a of p.aborted ?? []) out.writeInt64(a.producerId).writeInt64(a.firstOffset);
      out.writeInt32(-1).writeInt32(recordSet.length).writeBuffer(recordSet);
    }
  }
  return out.buffer;
}

const record = (offsetDelta: number, value: string | null, headers?: Headers): RecordSpec => ({
  offsetDelta,
  timestampDelta: offsetDelta * 3,
  key: Buffer.from(`user-${offsetDelta}`),
  value: value === null ? null : Buffer.from(value),
  headers,
});

async function expectSameAsKafkajs(raw: Buffer): Promise<void> {
  const ours = decodeFetchResponse(raw);
  expect(ours).toBeDefined();
  expect(ours).toStrictEqual(await kafkajsV11.decode(raw));
}

describe('decodeFetchResponse returns what kafkajs 2.2.4 decodes', () => {
  it.each<[string, PartitionSpec[]]>([
    ['one batch of one record', [{ partition: 0, batches: [{ firstOffset: 0, records: [record(0, 'a')] }] }]],
    [
      'several batches, partitions and offsets past 2^32',
      [
        {
          partition: 4,
          batches: [
            { firstOffset: 2 ** 40 + 5, records: [record(0, 'a'), record(1, 'b'), record(2, 'c')] },
            { firstOffset: 2 ** 40 + 8, records: [record(0, 'd')] },
          ],
        },
        { partition: 1, batches: [{ firstOffset: 12, records: [record(0, 'e'), record(1, 'f')] }] },
      ],
    ],
    [
      'null keys and values (tombstones), empty values',
      [
        {
          partition: 0,
          batches: [
            {
              firstOffset: 3,
              records: [
                { offsetDelta: 0, timestampDelta: 0, key: null, value: null },
                { offsetDelta: 1, timestampDelta: 0, key: Buffer.alloc(0), value: Buffer.alloc(0) },
              ],
            },
          ],
        },
      ],
    ],
    [
      'headers: repeated names become arrays, null values, multi-byte names',
      [
        {
          partition: 0,
          batches: [
            {
              firstOffset: 0,
              records: [
                record(0, 'x', {
                  'hookline-delivered-from': Buffer.from('router'),
                  dup: [Buffer.from('1'), null, Buffer.from('3')],
                  'nül-ünïcode': null,
                }),
              ],
            },
          ],
        },
      ],
    ],
    [
      'negative timestamp deltas and a first timestamp of -1',
      [
        {
          partition: 0,
          batches: [
            {
              firstOffset: 0,
              firstTimestamp: -1,
              records: [{ offsetDelta: 0, timestampDelta: -1_000, key: null, value: Buffer.from('v') }],
            },
          ],
        },
      ],
    ],
    [
      'log-append time, transactional and control batches, aborted transactions',
      [
        {
          partition: 2,
          batches: [
            { firstOffset: 0, extraAttributes: 0x08, records: [record(0, 'a'), record(1, 'b')] },
            { firstOffset: 2, transactional: true, producerId: 9, records: [record(0, 'c')] },
            {
              firstOffset: 3,
              transactional: true,
              extraAttributes: 0x20,
              producerId: 9,
              records: [record(0, null)],
            },
          ],
          aborted: [{ producerId: 9, firstOffset: 2 }],
        },
      ],
    ],
    [
      'a partial batch at the end is dropped',
      [
        {
          partition: 0,
          cut: 7,
          batches: [
            { firstOffset: 0, records: [record(0, 'a')] },
            { firstOffset: 1, records: [record(0, 'b'.repeat(100))] },
          ],
        },
      ],
    ],
    ['an empty record set', [{ partition: 0, batches: [] }]],
    [
      'a value of 70 KB (multi-byte lengths)',
      [{ partition: 0, batches: [{ firstOffset: 0, records: [record(0, 'v'.repeat(70_000))] }] }],
    ],
  ])('%s', async (_name, partitions) => {
    await expectSameAsKafkajs(await fetchResponse([{ name: 'hookline.events', partitions }]));
  });

  it('keys, values and header values are views of the response, as kafkajs hands them over', async () => {
    const raw = await fetchResponse([
      {
        name: 't',
        partitions: [
          { partition: 0, batches: [{ firstOffset: 0, records: [record(0, 'v', { h: Buffer.from('x') })] }] },
        ],
      },
    ]);
    const message = decodeFetchResponse(raw)!.responses[0]!.partitions[0]!.messages[0]!;
    expect(message.value!.buffer).toBe(raw.buffer);
    expect((message.headers.h as Buffer).buffer).toBe(raw.buffer);
  });

  it.each<[string, PartitionSpec[]]>([
    [
      'compressed batches',
      [{ partition: 0, batches: [{ firstOffset: 0, gzip: true, records: [record(0, 'a')] }] }],
    ],
    [
      'offsets beyond 2^53',
      [{ partition: 0, batches: [{ firstOffset: '9007199254740993', records: [record(0, 'a')] }] }],
    ],
    [
      'a header named like an Object.prototype property',
      [
        {
          partition: 0,
          batches: [{ firstOffset: 0, records: [record(0, 'a', { constructor: Buffer.from('x') })] }],
        },
      ],
    ],
    ['a legacy message set (magic 1)', [{ partition: 0, batches: [], recordSet: legacyMessageSet() }]],
    [
      'a record set too short to hold a magic byte',
      [{ partition: 0, batches: [], recordSet: Buffer.alloc(10) }],
    ],
  ])('leaves %s to kafkajs', async (_name, partitions) => {
    const raw = await fetchResponse([{ name: 't', partitions }]);
    expect(decodeFetchResponse(raw)).toBeUndefined();
  });

  it('leaves a truncated response to kafkajs', async () => {
    const raw = await fetchResponse([
      {
        name: 't',
        partitions: [{ partition: 0, batches: [{ firstOffset: 0, records: [record(0, 'abc')] }] }],
      },
    ]);
    for (const cut of [1, 5, 30])
      expect(decodeFetchResponse(raw.subarray(0, raw.length - cut))).toBeUndefined();
  });

  it('agrees with kafkajs on generated responses', async () => {
    const bytes = fc.option(
      fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      { freq: 5 },
    );
    const headers = fc.dictionary(
      fc.constantFrom('a', 'b', 'x-ü', '1', 'hookline-due-at'),
      fc.oneof(bytes, fc.array(bytes, { minLength: 1, maxLength: 3 })),
      { maxKeys: 4 },
    );
    const batch = fc.record({
      firstOffset: fc.oneof(fc.nat(1_000), fc.integer({ min: 0, max: 2 ** 45 })),
      firstTimestamp: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 2 ** 44 })),
      records: fc.array(
        fc.record({
          offsetDelta: fc.nat(100_000),
          timestampDelta: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
          key: bytes,
          value: bytes,
          headers,
        }),
        { minLength: 1, maxLength: 6 },
      ),
      transactional: fc.boolean(),
      gzip: fc.nat(9).map((n) => n === 0),
      extraAttributes: fc.constantFrom(0, 0, 0x08, 0x20),
    });
    const partition = fc.record({
      partition: fc.nat(11),
      batches: fc.array(batch, { maxLength: 3 }),
      cut: fc.oneof(fc.constant(0), fc.nat(60)),
      aborted: fc.array(fc.record({ producerId: fc.nat(50), firstOffset: fc.nat(1_000) }), { maxLength: 2 }),
    });
    const topics = fc.array(
      fc.record({ name: fc.string({ maxLength: 20 }), partitions: fc.array(partition, { maxLength: 3 }) }),
      { minLength: 1, maxLength: 2 },
    );
    let decodedHere = 0;
    await fc.assert(
      fc.asyncProperty(topics, async (spec) => {
        const raw = await fetchResponse(spec);
        const ours = decodeFetchResponse(raw);
        if (ours === undefined) return; // left to kafkajs
        decodedHere++;
        expect(ours).toStrictEqual(await kafkajsV11.decode(raw));
      }),
      { numRuns: 200 },
    );
    expect(decodedHere).toBeGreaterThan(100);
  });
});

type Built = {
  request: unknown;
  response: { decode(raw: Buffer): Promise<unknown>; parse(decoded: unknown): unknown };
  requestTimeout: number;
};
type Protocol = (options: { version: number }) => (args: object) => Built;

describe('useFastFetchDecoding on the installed kafkajs', () => {
  // The module registry kafkajs's brokers use in this test file, as `createKafka` sees it.
  const Fetch = requireKafkajs('kafkajs/src/protocol/requests/fetch') as { protocol: Protocol };
  const kafkajsProtocol = Fetch.protocol;
  const args = {
    maxWaitTime: 100,
    minBytes: 1,
    maxBytes: 1_048_576,
    topics: [{ topic: 't', partitions: [] }],
  };

  beforeAll(() => {
    expect(useFastFetchDecoding(requireKafkajs).status).toBe('applied');
  });

  it('is installed once', () => {
    expect(useFastFetchDecoding(requireKafkajs).status).toBe('already applied');
    expect(Fetch.protocol).not.toBe(kafkajsProtocol);
  });

  it('version 11: the request, timeout and parse of kafkajs, a decoder with the same results', async () => {
    const ours = Fetch.protocol({ version: 11 })(args);
    const theirs = kafkajsProtocol({ version: 11 })(args);
    expect(ours.requestTimeout).toBe(theirs.requestTimeout);
    expect(ours.response.parse).toBe(theirs.response.parse);
    expect(ours.response.decode).not.toBe(theirs.response.decode);
    const plain = await fetchResponse([
      { name: 't', partitions: [{ partition: 0, batches: [{ firstOffset: 5, records: [record(0, 'a')] }] }] },
    ]);
    const gzip = await fetchResponse([
      {
        name: 't',
        partitions: [{ partition: 0, batches: [{ firstOffset: 5, gzip: true, records: [record(0, 'a')] }] }],
      },
    ]);
    for (const raw of [plain, gzip])
      expect(await ours.response.decode(raw)).toStrictEqual(await theirs.response.decode(raw));
  });

  it('leaves other versions to kafkajs', () => {
    for (const version of [4, 7, 10])
      expect(Fetch.protocol({ version })(args).response).toBe(kafkajsProtocol({ version })(args).response);
  });
});

/** A magic-1 message set of one message (the format before record batches). */
function legacyMessageSet(): Buffer {
  const message = Buffer.alloc(8 + 4 + 4 + 1 + 1 + 8 + 4 + 4 + 1);
  message.writeInt32BE(0, 0); // offset, high
  message.writeInt32BE(7, 4); // offset, low
  message.writeInt32BE(message.length - 12, 8); // message size
  message.writeInt8(1, 16); // magic
  message.writeInt32BE(-1, 26); // key: null
  message.writeInt32BE(1, 30); // value: 1 byte
  return message;
}
