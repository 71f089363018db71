/** The prefixes of the names Hookline's configuration schema owns. */
export const SCHEMA_PREFIXES = ['HOOKLINE_', 'KAFKA_', 'SCHEMA_REGISTRY_'] as const;

export interface EnvMention {
  /** The name, or for `HOOKLINE_CIRCUIT_*` the prefix `HOOKLINE_CIRCUIT_`. */
  name: string;
  /** True for a wildcard mention (`HOOKLINE_CIRCUIT_*`). */
  wildcard: boolean;
  line: number;
}

/**
 * The environment variable names with one of `prefixes` that `text` mentions, anywhere (prose,
 * code, tables), with their line. `HOOKLINE_CIRCUIT_*` is a wildcard; a bare prefix (`KAFKA_`) or a
 * name inside a longer word (`MY_KAFKA_BROKERS`) is no mention.
 */
export function envMentions(text: string, prefixes: readonly string[] = SCHEMA_PREFIXES): EnvMention[] {
  const alternatives = prefixes.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const pattern = new RegExp(`(?<![A-Za-z0-9_])((?:${alternatives})[A-Z0-9_]*)(\\*)?`, 'g');
  const mentions: EnvMention[] = [];
  text.split('\n').forEach((lineText, i) => {
    for (const m of lineText.matchAll(pattern)) {
      const name = m[1]!;
      const wildcard = m[2] === '*';
      if (!wildcard && (prefixes.includes(name) || name.endsWith('_'))) continue;
      mentions.push({ name, wildcard, line: i + 1 });
    }
  });
  return mentions;
}

/** Whether a mention names a known variable (a wildcard: whether some known name starts with it). */
export function isKnown(mention: EnvMention, known: ReadonlySet<string>): boolean {
  return mention.wildcard ? [...known].some((n) => n.startsWith(mention.name)) : known.has(mention.name);
}
