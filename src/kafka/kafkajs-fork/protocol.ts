/**
 * Where Hookline replaces parts of kafkajs's protocol code (produce-encoding.ts,
 * fetch-decoding.ts). kafkajs looks a request's builder up at each send
 * (`lookupRequest(apiKeys.X, requests.X)` → `requests.X.protocol({ version })`), so wrapping that
 * one exported function is enough to change how a request is encoded or its response decoded.
 */

import {
  applied,
  notApplied,
  shapeMismatch,
  versionMismatch,
  type PatchName,
  type PatchResult,
} from './patch';

/** What kafkajs's builders return (the fields Hookline's wrappers touch). */
export interface BuiltRequest {
  request: { encode: () => Promise<unknown> };
  response: { decode: (raw: Buffer) => Promise<unknown>; parse: (decoded: unknown) => unknown };
}
export type RequestBuilder<Args> = (args: Args) => BuiltRequest;
export type RequestProtocol<Args> = (options: { version: number }) => RequestBuilder<Args>;

/**
 * Replaces `requests.<request>.protocol` of the kafkajs `requireFrom` resolves with
 * `wrap(kafkajs's own)`, once per module registry (`marker` tells), and only on kafkajs 2.2.4:
 * on any other release, or a builder of another shape, it reports the patch not applied.
 */
export function wrapRequestProtocol<Args>(
  requireFrom: NodeRequire,
  patch: PatchName,
  request: 'produce' | 'fetch',
  marker: symbol,
  wrap: (kafkajs: RequestProtocol<Args>) => RequestProtocol<Args>,
): PatchResult {
  const version = versionMismatch(requireFrom);
  if (version) return notApplied(patch, version);
  const definition = requireFrom(`kafkajs/src/protocol/requests/${request}`) as {
    protocol: RequestProtocol<Args> & { [key: symbol]: true | undefined };
  };
  const shape = shapeMismatch(`kafkajs requests/${request}`, definition, { protocol: 1 });
  if (shape) return notApplied(patch, shape);
  if (definition.protocol[marker]) return applied(patch, true);
  definition.protocol = Object.assign(wrap(definition.protocol), { [marker]: true as const });
  return applied(patch);
}
