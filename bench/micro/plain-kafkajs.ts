/**
 * kafkajs as published, without Hookline's changes (src/kafka/client.ts applies them process-wide,
 * to the kafkajs module the process loads): this module loads its own copy first, then drops every
 * kafkajs file from the module cache, so that the kafkajs Hookline's modules load afterwards is a
 * second copy, the one they patch. Import it before anything that imports kafkajs;
 * `assertSeparateCopy` says whether that worked.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Kafkajs from 'kafkajs';

const requireHere = createRequire(__filename);
const root = path.dirname(requireHere.resolve('kafkajs/package.json')) + path.sep;
if (Object.keys(requireHere.cache).some((file) => file.startsWith(root)))
  throw new Error('plain-kafkajs must be imported before anything else loads kafkajs');

export const plainKafkajs = requireHere('kafkajs') as typeof Kafkajs;

for (const file of Object.keys(requireHere.cache)) if (file.startsWith(root)) delete requireHere.cache[file];

/** Throws when `patched` (Hookline's kafkajs) is the same copy as `plainKafkajs`. */
export function assertSeparateCopy(patched: typeof Kafkajs): void {
  if (patched.Kafka === plainKafkajs.Kafka) throw new Error('plain and patched kafkajs are one copy');
}
