import type { Destination } from '../records/catalog-model';
import type { JsonObject } from '../events/json';
import type { HooklineEvent } from '../events/types';

/** The name Webhooks destinations answer to in an event's integrations object (case sensitive). */
export const WEBHOOKS_INTEGRATION = 'Webhooks';

/**
 * Whether an integrations object lets an event through to the named destination type:
 *  - every destination is enabled by default;
 *  - `All: false` disables every destination, unless its own key is set to true;
 *  - its own key false disables it. An object value (per-destination options) counts as true.
 */
export function integrationEnabled(integrations: JsonObject | undefined, name: string): boolean {
  if (!integrations) return true;
  const own = integrations[name];
  if (own === false) return false;
  if (own === true || (typeof own === 'object' && own !== null)) return true;
  return integrations.All !== false;
}

/** The destinations of the event's source that get it: enabled, and let through by integrations. */
export function destinationsFor(event: HooklineEvent, destinations: readonly Destination[]): Destination[] {
  const integrations = 'integrations' in event ? event.integrations : undefined;
  if (!integrationEnabled(integrations, WEBHOOKS_INTEGRATION)) return [];
  return destinations.filter((d) => d.enabled && d.sourceId === event.sourceId);
}
