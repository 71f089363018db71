import { createRequire } from 'node:module';
import { crc32c } from './crc32c';
import { encodeProduceRequest, type ProduceRequestArgs } from './produce-request';

/**
 * Makes kafkajs 2.2.4 encode Produce requests with `encodeProduceRequest` (one exact-size buffer)
 * instead of its own encoder, whose allocations and copies cost 13–14 µs of CPU per record here.
 *
 * kafkajs looks up a request's builder at each send (`lookupRequest(apiKeys.Produce,
 * requests.Produce)` → `requests.Produce.protocol({ version })`), so wrapping that one exported
 * function is enough: the wrapper builds kafkajs's own request object and replaces only its
 * `encode`, for versions 3 to 7 (one wire format). The response decoder, the request's other
 * fields and every other request are kafkajs's. What `encodeProduceRequest` does not handle
 * (compression, messages with their own timestamp, values kafkajs would reject) goes to
 * kafkajs's `encode` unchanged. The unit tests compare the bytes with kafkajs's encoder.
 */

/** The kafkajs release whose encoder `encodeProduceRequest` reproduces. */
export const KAFKAJS_VERSION = '2.2.4';
const FIRST_VERSION = 3;
const LAST_VERSION = 7;

interface BuiltRequest {
  request: { encode: () => Promise<unknown> };
  response: unknown;
}
type RequestBuilder = (args: ProduceRequestArgs) => BuiltRequest;
interface ProduceDefinition {
  versions: string[];
  protocol: ((options: { version: number }) => RequestBuilder) & { [WRAPPED]?: true };
}
interface EncoderClass {
  new (initialSize?: number): { buf: Buffer; offset: number };
}

const WRAPPED = Symbol('hookline.produceEncoding');

export type ProduceEncoding = 'applied' | 'already applied' | 'not needed';

/**
 * Installs the encoder on the kafkajs `requireFrom` resolves, once per module registry. Any other
 * kafkajs release is left alone ('not needed'). `requireFrom` is for tests.
 */
export function useFastProduceEncoding(
  requireFrom: NodeRequire = createRequire(__filename),
): ProduceEncoding {
  const version = (requireFrom('kafkajs/package.json') as { version: string }).version;
  if (version !== KAFKAJS_VERSION) return 'not needed';
  const Produce = requireFrom('kafkajs/src/protocol/requests/produce') as ProduceDefinition;
  if (Produce.protocol[WRAPPED]) return 'already applied';
  const Encoder = requireFrom('kafkajs/src/protocol/encoder') as EncoderClass;

  const asEncoder = (bytes: Buffer) => {
    const encoder = new Encoder(0);
    encoder.buf = bytes;
    encoder.offset = bytes.length;
    return encoder;
  };
  const kafkajsProtocol = Produce.protocol;
  const protocol = ({ version: apiVersion }: { version: number }): RequestBuilder => {
    const build = kafkajsProtocol({ version: apiVersion });
    if (apiVersion < FIRST_VERSION || apiVersion > LAST_VERSION) return build;
    return (args) => {
      const built = build(args);
      const kafkajsEncode = built.request.encode;
      built.request.encode = async () => {
        const bytes = encodeProduceRequest(args, Date.now(), crc32c);
        return bytes === undefined ? kafkajsEncode() : asEncoder(bytes);
      };
      return built;
    };
  };
  Produce.protocol = Object.assign(protocol, { [WRAPPED]: true as const });
  return 'applied';
}
