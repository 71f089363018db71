import { createRequire } from 'node:module';
import { crc32c } from './crc32c';
import type { PatchResult } from './patch';
import { wrapRequestProtocol } from './protocol';
import { encodeProduceRequest, type ProduceRequestArgs } from './produce-request';

/**
 * Makes kafkajs 2.2.4 encode Produce requests with `encodeProduceRequest` (one exact-size buffer)
 * instead of its own encoder and its allocations and copies (the cost: docs/adr/0001-kafka-client.md).
 *
 * The wrapper around kafkajs's `requests.Produce.protocol` (see protocol.ts) builds
 * kafkajs's own request object and replaces only its `encode`, for versions 3 to 7 (one wire
 * format). The response decoder, the request's other
 * fields and every other request are kafkajs's. What `encodeProduceRequest` does not handle
 * (compression, messages with their own timestamp, values kafkajs would reject) goes to
 * kafkajs's `encode` unchanged. The unit tests compare the bytes with kafkajs's encoder.
 */

const FIRST_VERSION = 3;
const LAST_VERSION = 7;
const WRAPPED = Symbol('hookline.produceEncoding');

interface EncoderClass {
  new (initialSize?: number): { buf: Buffer; offset: number };
}

/**
 * Installs the encoder on the kafkajs `requireFrom` resolves, once per module registry; on any other
 * kafkajs release than 2.2.4 it changes nothing and reports `not applied`, which fails start-up (see
 * `wrapRequestProtocol`). `requireFrom` is for tests.
 */
export function useFastProduceEncoding(requireFrom: NodeRequire = createRequire(__filename)): PatchResult {
  return wrapRequestProtocol<ProduceRequestArgs>(
    requireFrom,
    'produce-encoding',
    'produce',
    WRAPPED,
    (kafkajsProtocol) => {
      const Encoder = requireFrom('kafkajs/src/protocol/encoder') as EncoderClass;
      const asEncoder = (bytes: Buffer) => {
        const encoder = new Encoder(0);
        encoder.buf = bytes;
        encoder.offset = bytes.length;
        return encoder;
      };
      return ({ version: apiVersion }) => {
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
    },
  );
}
