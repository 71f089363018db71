import { createRequire } from 'node:module';
import { useFastProduceEncoding } from '../../../../src/kafka/kafkajs-fork/produce-encoding';

// The module registry kafkajs's brokers use in this test file, as `createKafka` sees it.
const requireKafkajs = createRequire(__filename);
type Built = { request: { apiVersion: number; encode(): Promise<{ buffer: Buffer }> }; response: unknown };
type Protocol = (options: { version: number }) => (args: object) => Built;
const Produce = requireKafkajs('kafkajs/src/protocol/requests/produce') as { protocol: Protocol };
const kafkajsProtocol = Produce.protocol;

const NOW_MS = 1_764_000_000_123;
const args = {
  acks: -1,
  timeout: 30_000,
  topicData: [
    {
      topic: 'hookline.events',
      partitions: [
        { partition: 2, messages: [{ key: 'user-1', value: Buffer.from('body'), headers: { h: 'v' } }] },
      ],
    },
  ],
};

async function bytes(protocol: Protocol, version: number, request: object): Promise<Buffer> {
  const spy = jest.spyOn(Date, 'now').mockReturnValue(NOW_MS);
  try {
    return (await protocol({ version })(request).request.encode()).buffer;
  } finally {
    spy.mockRestore();
  }
}

describe('useFastProduceEncoding on the installed kafkajs', () => {
  beforeAll(() => {
    expect(useFastProduceEncoding(requireKafkajs).status).toBe('applied');
  });

  it('is installed once', () => {
    expect(useFastProduceEncoding(requireKafkajs).status).toBe('already applied');
    expect(Produce.protocol).not.toBe(kafkajsProtocol);
  });

  it.each([3, 4, 5, 6, 7])(
    'version %d: the same bytes, apiVersion and response decoder as kafkajs',
    async (version) => {
      const ours = Produce.protocol({ version })(args);
      const theirs = kafkajsProtocol({ version })(args);
      expect(ours.request.apiVersion).toBe(version);
      expect(ours.response).toBe(theirs.response);
      expect(
        (await bytes(Produce.protocol, version, args)).equals(await bytes(kafkajsProtocol, version, args)),
      ).toBe(true);
    },
  );

  it('leaves versions before 3 to kafkajs', async () => {
    expect((await bytes(Produce.protocol, 2, args)).equals(await bytes(kafkajsProtocol, 2, args))).toBe(true);
  });

  it('hands what it does not encode (compression) to kafkajs', async () => {
    const gzip = { ...args, compression: 1 };
    const ours = await bytes(Produce.protocol, 7, gzip);
    expect(ours.equals(await bytes(kafkajsProtocol, 7, gzip))).toBe(true);
  });
});
