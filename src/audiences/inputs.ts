import type { KafkaMessage } from 'kafkajs';
import { UndecodableRecordError } from '../core/errors';
import type { HooklineEvent } from '../events/types';
import type { Logger } from '../observability/logger';
import { decodeCommand } from '../records/audience-state';
import type { EventCodec } from '../records/event';
import type { Definitions } from './definitions';
import type { ProcessorTime } from './partition';
import type { PartitionUnit } from './unit';

export interface ApplyInputsOptions {
  /** hookline.events; any other topic is hookline.audience-commands. */
  eventsTopic: string;
  defs: Definitions;
  time: ProcessorTime;
  decode: (m: KafkaMessage) => Promise<HooklineEvent | undefined>;
  logger: Logger;
}

/**
 * Applies a fetched batch's records to the unit's users (not evaluated yet: the next flush does),
 * skipping those applied before. With no computation anywhere and no user state kept, nothing an
 * event could change: the events are not even decoded (the cost of the role on a deployment
 * without audiences).
 */
export async function applyInputs(
  unit: PartitionUnit,
  topic: string,
  messages: KafkaMessage[],
  options: ApplyInputsOptions,
): Promise<void> {
  const { defs, time } = options;
  const { progress, state } = unit;
  const out = progress.pending;
  const isEvents = topic === options.eventsTopic;
  const idle = isEvents && defs.all().length === 0 && state.users.size === 0;
  for (const m of idle ? [] : messages) {
    if (progress.isApplied(topic, m.offset)) continue;
    if (isEvents) {
      const event = await options.decode(m);
      if (event) state.applyEvent(event, defs, time, out);
    } else if (m.value) {
      const command = decodeCommand(m.value);
      if (!state.applyCommand(command, defs, time, out))
        options.logger.warn(
          {
            partition: state.partition,
            audienceId: command.audienceId,
            syncId: command.syncId,
            offset: m.offset,
          },
          'audience command for no synced audience this processor knows (deleted?): dropped',
        );
    }
  }
}

/** An event of hookline.events, or undefined (logged) when it cannot be decoded: skipped, never retried. */
export async function decodeEventOrSkip(
  events: EventCodec,
  m: KafkaMessage,
  partition: number,
  logger: Logger,
): Promise<HooklineEvent | undefined> {
  if (!m.value) return undefined;
  try {
    return await events.decode(m.value);
  } catch (err) {
    if (!(err instanceof UndecodableRecordError)) throw err;
    logger.warn({ partition, offset: m.offset, reason: err.message }, 'skipping undecodable event');
    return undefined;
  }
}
