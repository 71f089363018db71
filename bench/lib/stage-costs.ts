import { performance } from 'node:perf_hooks';
import type { EventCodec } from '../../src/records/event';
import { parseJsonText, type JsonObject, type JsonValue } from '../../src/events/json';
import { normalizeEvent } from '../../src/events/normalize';
import { batchBody } from './events';

export interface StageCosts {
  /** µs per event for each step of the tracking API's CPU work on a 100-event batch. */
  jsonParseNative: number;
  jsonParseLossless: number;
  normalize: number;
  avroEncode: number;
}

/**
 * A micro-benchmark of the tracking API's per-event CPU work, stage by stage, with the app's own
 * functions: what the lossless JSON parse costs next to JSON.parse, what normalising and Avro
 * encoding cost. Each stage runs 3 trials of about `trialMs` and keeps the fastest (the one least
 * disturbed by other processes); the figures are µs per event.
 */
export function measureStageCosts(codec: EventCodec, sourceId: string, trialMs = 150): StageCosts {
  const body = batchBody('stage', 0, 100);
  const perEvent = (fn: () => void) => {
    for (let i = 0; i < 20; i++) fn(); // warm-up
    let best = Number.POSITIVE_INFINITY;
    for (let trial = 0; trial < 3; trial++) {
      let runs = 0;
      const startedAt = performance.now();
      while (performance.now() - startedAt < trialMs) {
        fn();
        runs++;
      }
      best = Math.min(best, ((performance.now() - startedAt) * 1_000) / (runs * 100));
    }
    return best;
  };
  const parsed = parseJsonText(body, { events: true }); // as the tracking API parses it
  const items = (parsed.value as JsonObject).batch as JsonValue[];
  const normalize = () =>
    items.map((raw, index) => {
      const r = normalizeEvent(raw, {
        sourceId,
        receivedAtMs: Date.now(),
        pathType: undefined,
        defaults: {},
        newMessageId: () => 'x',
        plainJson: parsed.plain, // as the tracking API passes them
        sourceTexts: parsed.scan?.batch?.[index],
      });
      if (!r.ok) throw new Error(r.rejection.reason);
      return r;
    });
  // Encoded as the API encodes them: with what normalising computed (PrecomputedFields).
  const normalized = normalize();
  return {
    jsonParseNative: perEvent(() => JSON.parse(body)),
    jsonParseLossless: perEvent(() => parseJsonText(body, { events: true })),
    normalize: perEvent(normalize),
    avroEncode: perEvent(() => normalized.forEach((n) => codec.encode(n.event, n.precomputed))),
  };
}
