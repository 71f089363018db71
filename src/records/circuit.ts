import { createHash } from 'node:crypto';
import type { AvroCodec } from '../avro/codec';
import { UndecodableRecordError } from '../core/errors';

/** The record type of `<prefix>.circuits` (schemas/circuit-state.avsc). */
export const CIRCUIT_STATE_RECORD = 'io.hookline.delivery.CircuitState';

/** A breaker's state as workers share it: open or closed (half-open is an open one past `openUntilMs`). */
export interface SharedCircuit {
  state: 'open' | 'closed';
  sinceMs: number;
  /** End of the cool-down (open only). */
  openUntilMs?: number;
  /** Trips in a row (0 when closed). */
  trips: number;
  /** When it first opened since it was last closed (open only). */
  failingSinceMs?: number;
  lastError?: string;
}

/** One destination URL's circuit after a transition, as published by the worker that made it. */
export interface CircuitRecord extends SharedCircuit {
  destinationId: string;
  urlIndex: number;
  /** `circuitUrlHash(url)`: the record applies only while the destination has that URL there. */
  urlHash: string;
  updatedAtMs: number;
}

interface CircuitAvro {
  destinationId: string;
  urlIndex: number;
  urlHash: string;
  state: string;
  since: number;
  openUntil: number | null;
  trips: number;
  failingSince: number | null;
  lastError: string | null;
  updatedAt: number;
}

/** The record key: one record per destination URL position (compaction keeps the last). */
export function circuitKey(destinationId: string, urlIndex: number): string {
  return `${destinationId}/${urlIndex}`;
}

/** Identifies the URL without writing it (a URL may carry a token) to the topic. */
export function circuitUrlHash(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 32);
}

export function encodeCircuit(avro: AvroCodec, r: CircuitRecord): Buffer {
  return avro.encode(CIRCUIT_STATE_RECORD, {
    destinationId: r.destinationId,
    urlIndex: r.urlIndex,
    urlHash: r.urlHash,
    state: r.state,
    since: r.sinceMs,
    openUntil: r.openUntilMs ?? null,
    trips: r.trips,
    failingSince: r.failingSinceMs ?? null,
    lastError: r.lastError ?? null,
    updatedAt: r.updatedAtMs,
  } satisfies CircuitAvro);
}

export async function decodeCircuit(avro: AvroCodec, bytes: Buffer): Promise<CircuitRecord> {
  const { name, value } = await avro.decode(bytes);
  if (name !== CIRCUIT_STATE_RECORD) throw new UndecodableRecordError(`${name} is not a CircuitState`);
  const r = value as unknown as CircuitAvro;
  if (r.state !== 'open' && r.state !== 'closed')
    throw new UndecodableRecordError(`unknown circuit state ${r.state}`);
  return {
    destinationId: r.destinationId,
    urlIndex: r.urlIndex,
    urlHash: r.urlHash,
    state: r.state,
    sinceMs: r.since,
    ...(r.openUntil !== null && { openUntilMs: r.openUntil }),
    trips: r.trips,
    ...(r.failingSince !== null && { failingSinceMs: r.failingSince }),
    ...(r.lastError !== null && { lastError: r.lastError }),
    updatedAtMs: r.updatedAt,
  };
}
