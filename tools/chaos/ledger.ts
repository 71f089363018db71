/**
 * The chaos run's accounting, as a pure function: given the events the ingest API accepted, what
 * each destination's receiver got, and what is on the dead-letter topic, says per destination how
 * many events arrived, how many arrived more than once, which were dead-lettered (and why), and
 * which are lost (neither delivered nor dead-lettered with a reason).
 */

/** How a destination's receivers behave in the chaos run (see scenario.ts). */
export type DestinationKind = 'healthy' | 'failover' | 'flapping' | 'hung';

export interface DestinationObservation {
  name: string;
  kind: DestinationKind;
  destinationId: string;
  /** One entry per 2xx answer the destination gave: the messageId of the delivered body. */
  deliveredMessageIds: readonly string[];
}

export interface DeadLetterObservation {
  messageId: string;
  destinationId: string;
  /** The dead-letter reason; an empty one does not account for an event. */
  reason: string;
}

export interface LedgerInput {
  /** messageIds of every event the ingest API accepted (2xx to the client). */
  accepted: readonly string[];
  destinations: readonly DestinationObservation[];
  deadLetters: readonly DeadLetterObservation[];
}

export interface DestinationTally {
  name: string;
  kind: DestinationKind;
  /** Accepted events delivered at least once. */
  delivered: number;
  /** 2xx answers for accepted events, repeats included. */
  deliveries: number;
  /** deliveries − delivered: the repeats at-least-once costs. */
  duplicates: number;
  /** Accepted events not delivered but dead-lettered, by reason. */
  deadLettered: Record<string, number>;
  /** Accepted events neither delivered nor dead-lettered with a reason (first few ids in `lostSample`). */
  lost: number;
  lostSample: string[];
}

export interface Ledger {
  destinations: DestinationTally[];
  /** Over every destination. */
  lost: number;
  deliveries: number;
  duplicates: number;
  /** duplicates ÷ deliveries (0 when nothing was delivered). */
  duplicateShare: number;
}

const LOST_SAMPLE = 5;

export function tally(input: LedgerInput): Ledger {
  const reasons = new Map<string, Map<string, string>>(); // destinationId → messageId → reason
  for (const dl of input.deadLetters) {
    if (!dl.reason) continue;
    let byMessage = reasons.get(dl.destinationId);
    if (!byMessage) reasons.set(dl.destinationId, (byMessage = new Map()));
    byMessage.set(dl.messageId, dl.reason);
  }
  const accepted = new Set(input.accepted);
  const destinations = input.destinations.map((d) => tallyOne(d, accepted, reasons.get(d.destinationId)));
  const deliveries = sum(destinations.map((d) => d.deliveries));
  const duplicates = sum(destinations.map((d) => d.duplicates));
  return {
    destinations,
    lost: sum(destinations.map((d) => d.lost)),
    deliveries,
    duplicates,
    duplicateShare: deliveries === 0 ? 0 : duplicates / deliveries,
  };
}

function tallyOne(
  destination: DestinationObservation,
  accepted: ReadonlySet<string>,
  reasons: ReadonlyMap<string, string> | undefined,
): DestinationTally {
  const counts = new Map<string, number>();
  for (const id of destination.deliveredMessageIds) {
    if (accepted.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const deadLettered: Record<string, number> = {};
  const lostSample: string[] = [];
  let lost = 0;
  for (const id of accepted) {
    if (counts.has(id)) continue;
    const reason = reasons?.get(id);
    if (reason !== undefined) deadLettered[reason] = (deadLettered[reason] ?? 0) + 1;
    else if (lost++ < LOST_SAMPLE) lostSample.push(id);
  }
  const deliveries = sum([...counts.values()]);
  return {
    name: destination.name,
    kind: destination.kind,
    delivered: counts.size,
    deliveries,
    duplicates: deliveries - counts.size,
    deadLettered,
    lost,
    lostSample,
  };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
