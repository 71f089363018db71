/**
 * Where Hookline replaces parts of kafkajs's protocol code (produce-encoding.ts,
 * fetch-decoding.ts). kafkajs looks a request's builder up at each send
 * (`lookupRequest(apiKeys.X, requests.X)` → `requests.X.protocol({ version })`), so wrapping that
 * one exported function is enough to change how a request is encoded or its response decoded.
 */

/** The kafkajs release whose encoder and decoder Hookline's replacements reproduce. */
export const KAFKAJS_VERSION = '2.2.4';

/** Whether the kafkajs `requireFrom` resolves is the release Hookline's replacements reproduce. */
export function isReproducedKafkajs(requireFrom: NodeRequire): boolean {
  return (requireFrom('kafkajs/package.json') as { version: string }).version === KAFKAJS_VERSION;
}

export type ProtocolFix = 'applied' | 'already applied' | 'not needed';

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
 * any other release is left alone ('not needed').
 */
export function wrapRequestProtocol<Args>(
  requireFrom: NodeRequire,
  request: 'produce' | 'fetch',
  marker: symbol,
  wrap: (kafkajs: RequestProtocol<Args>) => RequestProtocol<Args>,
): ProtocolFix {
  if (!isReproducedKafkajs(requireFrom)) return 'not needed';
  const definition = requireFrom(`kafkajs/src/protocol/requests/${request}`) as {
    protocol: RequestProtocol<Args> & { [key: symbol]: true | undefined };
  };
  if (definition.protocol[marker]) return 'already applied';
  definition.protocol = Object.assign(wrap(definition.protocol), { [marker]: true as const });
  return 'applied';
}
