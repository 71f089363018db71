import type { AvroCodec } from '../avro/codec';
import { UNDECODABLE_RECORD } from './dead-letter';
import { DELIVERY_TASK_RECORD, decodeTask, type DeliveryTask } from './delivery-task';
import { UndecodableRecordError } from '../core/errors';
import type { RecordPosition } from '../kafka/positions';

export const REDRIVEN_RECORD = 'io.hookline.delivery.Redriven';

/** A record copied to the dead-letter topic because it could not be decoded where it was read. */
export interface UndecodableCopy {
  topic: string;
  partition: number;
  offset: number;
  reason: string;
  deadLetteredAtMs: number;
  /** Size of the original value; the bytes themselves stay on the topic. */
  valueBytes: number;
}

/** Marks the dead letter at `deadLetter` as redriven (schemas/redriven.avsc). */
export interface RedrivenMarker {
  taskId: string;
  deadLetter: RecordPosition;
  redrivenAtMs: number;
}

/** The three kinds of record on `<prefix>.dlq`. */
export type DlqRecord =
  | { kind: 'task'; task: DeliveryTask }
  | { kind: 'undecodable'; copy: UndecodableCopy }
  | { kind: 'redriven'; marker: RedrivenMarker };

interface UndecodableValue {
  topic: string;
  partition: number;
  offset: number;
  value: Buffer | null;
  reason: string;
  deadLetteredAt: number;
}

interface RedrivenValue {
  taskId: string;
  deadLetterPartition: number;
  deadLetterOffset: number;
  redrivenAt: number;
}

/** Throws UndecodableRecordError for bytes that are none of the three (or corrupt). */
export async function decodeDlqRecord(avro: AvroCodec, bytes: Buffer): Promise<DlqRecord> {
  const { name, value } = await avro.decode(bytes);
  if (name === DELIVERY_TASK_RECORD) return { kind: 'task', task: await decodeTask(avro, bytes) };
  if (name === UNDECODABLE_RECORD) {
    const r = value as unknown as UndecodableValue;
    return {
      kind: 'undecodable',
      copy: {
        topic: r.topic,
        partition: r.partition,
        offset: r.offset,
        reason: r.reason,
        deadLetteredAtMs: r.deadLetteredAt,
        valueBytes: r.value?.length ?? 0,
      },
    };
  }
  if (name === REDRIVEN_RECORD) {
    const r = value as unknown as RedrivenValue;
    return {
      kind: 'redriven',
      marker: {
        taskId: r.taskId,
        deadLetter: { partition: r.deadLetterPartition, offset: String(r.deadLetterOffset) },
        redrivenAtMs: r.redrivenAt,
      },
    };
  }
  throw new UndecodableRecordError(`${name} does not belong on the dead-letter topic`);
}

export function encodeRedriven(avro: AvroCodec, marker: RedrivenMarker): Buffer {
  return avro.encode(REDRIVEN_RECORD, {
    taskId: marker.taskId,
    deadLetterPartition: marker.deadLetter.partition,
    deadLetterOffset: Number(marker.deadLetter.offset),
    redrivenAt: marker.redrivenAtMs,
  });
}
