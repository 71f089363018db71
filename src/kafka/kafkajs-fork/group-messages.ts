import Module, { createRequire } from 'node:module';
import path from 'node:path';
import type { Message, PartitionMetadata } from 'kafkajs';
import { applied, notApplied, skipped, versionMismatch, type PatchResult } from './patch';

export interface GroupArgs {
  topic: string;
  partitionMetadata: PartitionMetadata[];
  messages: Message[];
  partitioner: (args: { topic: string; partitionMetadata: PartitionMetadata[]; message: Message }) => number;
}

/**
 * kafkajs's `producer/groupMessagesPerPartition`, which sorts a send's messages by partition, in
 * linear time: kafkajs copies the partition's array and an object per message (`[...current,
 * message]`), quadratic in the messages per partition (the cost: docs/adr/0001-kafka-client.md). Same result: an object from partition to its
 * messages in their order, the partitioner called once per message, in order, with the same
 * arguments.
 */
export function groupMessagesPerPartition({
  topic,
  partitionMetadata,
  messages,
  partitioner,
}: GroupArgs): Record<number, Message[]> {
  if (partitionMetadata.length === 0) return {};
  const result: Record<number, Message[]> = {};
  for (const message of messages) {
    const partition = partitioner({ topic, partitionMetadata, message });
    const current = result[partition];
    if (current === undefined) result[partition] = [message];
    else current.push(message);
  }
  return result;
}

const MODULE = 'kafkajs/src/producer/groupMessagesPerPartition';

/**
 * kafkajs's producer takes that function with `require` when kafkajs loads and keeps it, so it
 * cannot be replaced afterwards the way the protocol code is (protocol.ts): this puts Hookline's
 * in the module cache under kafkajs's file name before kafkajs loads (not applied, 'too late',
 * when it already has). Only for kafkajs 2.2.4. preload.ts runs it, as the first import of each
 * Hookline process entry; `applyKafkajsFixes` runs it again to tell whether it was in time.
 */
export function preloadGroupMessages(
  requireFrom: NodeRequire = createRequire(__filename),
  /** False under jest, whose module registry is not Node's and ignores what is put in its cache. */
  cacheHonoured = requireFrom.cache === (Module as unknown as { _cache: NodeJS.Dict<NodeModule> })._cache,
): PatchResult {
  const version = versionMismatch(requireFrom);
  if (version) return notApplied('group-messages', version);
  // Nothing to put in place: kafkajs's own grouping runs (the same results); no Hookline process.
  if (!cacheHonoured) return skipped('group-messages', 'not in a module registry of Node');
  const file = requireFrom.resolve(MODULE);
  const cached = requireFrom.cache[file];
  if (cached) {
    return cached.exports === groupMessagesPerPartition
      ? applied('group-messages', true)
      : notApplied(
          'group-messages',
          'kafkajs was loaded before src/kafka/kafkajs-fork/preload.ts: import it first in the process entry',
        );
  }
  const module = new Module(file);
  module.filename = file;
  module.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(
    path.dirname(file),
  );
  module.exports = groupMessagesPerPartition;
  module.loaded = true;
  requireFrom.cache[file] = module;
  return applied('group-messages');
}
