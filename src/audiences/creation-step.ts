import type { Admin, Kafka, KafkaMessage } from 'kafkajs';
import type { HooklineEvent } from '../events/types';
import { readPartition } from '../kafka/partition-reader';
import type { Logger } from '../observability/logger';
import type { Computation } from './computations';
import { Creation, needsHistory, planCreation } from './creation';
import type { Definitions } from './definitions';
import { Outbox, type ProcessorTime } from './partition';
import type { PartitionUnit } from './unit';

export interface CreationStepOptions {
  kafka: Kafka;
  admin: Admin;
  /** hookline.events */
  eventsTopic: string;
  groupId: string;
  hourMs: number;
  time(): ProcessorTime;
  decode(m: KafkaMessage): Promise<HooklineEvent | undefined>;
  logger: Logger;
}

/**
 * One computation created on one partition, in a transaction of its own: the history still on
 * hookline.events up to where the unit stands is read again if the plan needs it, then its first
 * members are announced (creation.ts). The unit must have nothing applied and not committed.
 */
export async function createOnPartition(
  unit: PartitionUnit,
  defs: Definitions,
  computation: Computation,
  options: CreationStepOptions,
): Promise<void> {
  const { partition } = unit.state;
  const plan = planCreation(unit.state, defs, computation, options.hourMs);
  const out = new Outbox();
  const creation = new Creation(unit.state, plan, out);
  const time = options.time();
  creation.start(time);
  if (needsHistory(plan)) {
    await readPartition({
      kafka: options.kafka,
      admin: options.admin,
      topic: options.eventsTopic,
      partition,
      end: unit.position,
      groupIdPrefix: `${options.groupId}.history`,
      logger: options.logger,
      onRecords: async (messages) => {
        for (const m of messages) {
          const event = await options.decode(m);
          if (event) creation.apply(event, time);
        }
      },
    });
  }
  creation.finish(options.time());
  await unit.commit(out, time.nowMs);
  options.logger.info(
    { computationId: computation.id, partition, members: unit.state.membersOf(computation.id) },
    'audience computation live on partition',
  );
}
