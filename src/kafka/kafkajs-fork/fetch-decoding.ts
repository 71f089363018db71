import { createRequire } from 'node:module';
import { decodeFetchResponse } from './fetch-response';
import type { PatchResult } from './patch';
import { wrapRequestProtocol, type BuiltRequest } from './protocol';

/**
 * Makes kafkajs 2.2.4 decode Fetch v11 responses (what it uses with any Kafka from 2.4 on) with
 * `decodeFetchResponse` instead of its own decoder: the same result, without a `Decoder`, a
 * 64-bit `Long` and a re-spread headers object per record. Responses that function leaves
 * (compression, legacy formats, anything unusual) and other Fetch versions are kafkajs's. Only the
 * response's `decode` changes: the request, its timeout and `parse` are kafkajs's. The unit tests
 * compare the results with kafkajs's decoder.
 */

const DECODED_VERSION = 11;
const WRAPPED = Symbol('hookline.fetchDecoding');

type Response = BuiltRequest['response'];

/** Installs the decoder on the kafkajs `requireFrom` resolves (see `wrapRequestProtocol`). */
export function useFastFetchDecoding(requireFrom: NodeRequire = createRequire(__filename)): PatchResult {
  return wrapRequestProtocol<unknown>(
    requireFrom,
    'fetch-decoding',
    'fetch',
    WRAPPED,
    (kafkajsProtocol) =>
      ({ version }) => {
        const build = kafkajsProtocol({ version });
        if (version !== DECODED_VERSION) return build;
        let response: Response | undefined; // one per version, as kafkajs's own
        return (args) => {
          const built = build(args);
          const kafkajs = built.response;
          response ??= {
            decode: async (raw) => decodeFetchResponse(raw) ?? kafkajs.decode(raw),
            parse: kafkajs.parse,
          };
          return { ...built, response };
        };
      },
  );
}
