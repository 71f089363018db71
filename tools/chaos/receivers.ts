import { startReceiver, type Receiver } from '../../test/support/receiver';
import type { Delivery } from './duplicates';
import type { DestinationKind } from './ledger';

export interface ReceiverPlan {
  /** Destinations that always answer 200. */
  healthy: number;
  /** Destinations that accept the connection and never answer. */
  hung: number;
  /** The flapping destination cuts the connection of its first this many requests, then answers 200. */
  flappingDrops: number;
}

/** One destination of the chaos run and the receivers behind its URLs. */
export interface ChaosDestination {
  name: string;
  kind: DestinationKind;
  /** The destination's webhook URLs, in failover order. */
  urls: string[];
  /** Requests its receivers got, over all its URLs. */
  requests(): number;
  /** The messageId of every body it answered 2xx to, repeats included (none for a hung one). */
  deliveredMessageIds(): string[];
  /** The same, with when each arrived. */
  deliveries(): Delivery[];
}

/**
 * The scripted receivers, all real HTTP servers on 127.0.0.1:
 *  - `healthy-<n>`: 200 at once;
 *  - `failover`: its first URL always answers 500, its second 200;
 *  - `flapping`: drops the connection (no response) on its first `flappingDrops` requests, then 200;
 *  - `hung-<n>`: reads the request and never answers.
 */
export async function startChaosReceivers(
  plan: ReceiverPlan,
): Promise<{ destinations: ChaosDestination[]; close(): Promise<void> }> {
  const receivers: Receiver[] = [];
  const start = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
  const destinations: ChaosDestination[] = [];

  for (let i = 1; i <= plan.healthy; i++) {
    const r = await start(() => ({ status: 200 }));
    destinations.push(destination(`healthy-${i}`, 'healthy', [r], r, 0));
  }
  const failing = await start(() => ({ status: 500 }));
  const backup = await start(() => ({ status: 200 }));
  destinations.push(destination('failover', 'failover', [failing, backup], backup, 0));
  const flapping = await start((_req, index) => (index < plan.flappingDrops ? 'drop' : { status: 200 }));
  destinations.push(destination('flapping', 'flapping', [flapping], flapping, plan.flappingDrops));
  for (let i = 1; i <= plan.hung; i++) {
    const r = await start(() => 'hang');
    destinations.push(destination(`hung-${i}`, 'hung', [r], undefined, 0));
  }
  return { destinations, close: async () => void (await Promise.all(receivers.map((r) => r.close()))) };
}

/** `answeredFrom`: index of the first request `deliveredTo` answered 200 (earlier ones failed). */
function destination(
  name: string,
  kind: DestinationKind,
  receivers: Receiver[],
  deliveredTo: Receiver | undefined,
  answeredFrom: number,
): ChaosDestination {
  const parsed: Delivery[] = []; // deliveredTo's requests, parsed once each
  const deliveries = () => {
    if (!deliveredTo) return [];
    const requests = deliveredTo.requests;
    for (let i = parsed.length; i < requests.length; i++)
      parsed.push({ messageId: messageIdOf(requests[i]!.body), atMs: requests[i]!.atMs });
    return parsed.slice(answeredFrom);
  };
  return {
    name,
    kind,
    urls: receivers.map((r) => r.url),
    requests: () => receivers.reduce((n, r) => n + r.requests.length, 0),
    deliveredMessageIds: () => deliveries().map((d) => d.messageId),
    deliveries,
  };
}

function messageIdOf(body: Buffer): string {
  try {
    const { messageId } = JSON.parse(body.toString('utf8')) as { messageId?: unknown };
    return typeof messageId === 'string' ? messageId : '';
  } catch {
    return '';
  }
}
