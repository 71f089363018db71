import { createRequire } from 'node:module';
import { registerCompressionCodecs } from './compression';
import { useFastFetchDecoding } from './fetch-decoding';
import { preloadGroupMessages } from './group-messages';
import { fixMetadataRefresh } from './metadata-refresh';
import { assertApplied, type PatchResult } from './patch';
import { useFastProduceEncoding } from './produce-encoding';
import { fixRequestQueueTimer } from './request-queue-timer';
import { fixRunnerStop } from './runner-stop';

export { KafkajsPatchError, KAFKAJS_VERSION, type PatchName, type PatchResult } from './patch';
export { brokerGoneLog } from './broker-gone';
export { kafkajsLogLevel, retriableProtocolMessages, routineProtocolMessages } from './log-levels';

/**
 * Hookline's fork of kafkajs 2.2.4, applied to the kafkajs `requireFrom` resolves, process-wide
 * (README.md lists each patch, why, and the test that fails without it): grouping by partition in
 * linear time (its preload must have come before kafkajs loaded: preload.ts), no busy timer on
 * every connection, Produce requests encoded and Fetch responses decoded in one pass, a consumer
 * stopped while it joins its group does not stay in it, Snappy, LZ4 and ZSTD readable, and a
 * client's metadata cache that keeps every topic it was asked about.
 * Idempotent. Throws a KafkajsPatchError naming the first patch that could not be applied: a
 * process never runs on a kafkajs the fork does not match. Only Hookline's own processes call it
 * (`createKafka` with `patches: 'hookline-process'`); the producer library never does.
 */
export function applyKafkajsFixes(requireFrom: NodeRequire = createRequire(__filename)): PatchResult[] {
  return assertApplied([
    preloadGroupMessages(requireFrom),
    fixRequestQueueTimer(requireFrom),
    useFastProduceEncoding(requireFrom),
    useFastFetchDecoding(requireFrom),
    fixRunnerStop(requireFrom),
    registerCompressionCodecs(requireFrom),
    fixMetadataRefresh(requireFrom),
  ]);
}
