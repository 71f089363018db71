import type { KafkaMessage } from 'kafkajs';

/**
 * Records on a delay topic carry their due time as a header too, so the delay consumer can
 * decide to wait without decoding the record.
 */
export const DUE_AT_HEADER = 'hookline-due-at';

export function dueAtHeader(dueAtMs: number): Record<string, string> {
  return { [DUE_AT_HEADER]: String(dueAtMs) };
}

export function dueAtOf(message: KafkaMessage): number | undefined {
  const raw = message.headers?.[DUE_AT_HEADER];
  if (raw === undefined) return undefined;
  const value = Number(Array.isArray(raw) ? raw[0]?.toString() : raw.toString());
  return Number.isFinite(value) ? value : undefined;
}
