import { UndecodableRecordError } from '../core/errors';
import type { AvroCodec } from '../avro/codec';
import type { ConsumedMessage, MessageHandler } from '../kafka/consumer';
import type { Logger } from '../observability/logger';
import type { DeadLetterWriter } from '../records/dead-letter';
import { deliveredFrom } from './delivered-lookup';
import type { SubmitOptions } from './dispatcher';
import { decodeTask, type DeliveryTask } from '../records/delivery-task';

/**
 * A consumer handler for topics of delivery tasks (deliveries, delay topics): decodes the task
 * and passes it on; a record that cannot be decoded is copied to the dead-letter topic with the
 * reason instead, and its offset may then be committed.
 */
export function taskHandler(options: {
  avro: AvroCodec;
  deadLetters: DeadLetterWriter;
  logger: Logger;
  handle: (task: DeliveryTask, consumed: ConsumedMessage) => Promise<void>;
}): MessageHandler {
  const { avro, deadLetters, logger, handle } = options;
  return async (consumed) => {
    let task: DeliveryTask;
    try {
      task = await decodeTask(avro, consumed.message.value ?? Buffer.alloc(0));
    } catch (err) {
      if (!(err instanceof UndecodableRecordError)) throw err; // registry down: retried
      logger.warn(
        {
          topic: consumed.topic,
          partition: consumed.partition,
          offset: consumed.message.offset,
          reason: err.message,
        },
        'undecodable delivery task dead-lettered',
      );
      await deadLetters.undecodable(consumed, err.message);
      return;
    }
    await handle(task, consumed);
  };
}

/** How a consumed task goes to the dispatcher: while its partition is held, and from where it was read. */
export function submitOptions(consumed: ConsumedMessage): SubmitOptions {
  return {
    held: consumed.held,
    source: deliveredFrom(consumed.topic, consumed.partition, consumed.message.offset),
  };
}
