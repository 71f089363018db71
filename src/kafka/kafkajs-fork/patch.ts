import { HooklineError } from '../../core/errors';

/**
 * What every patch of the fork shares: the one kafkajs release they are written against, how a
 * patch reports what it did, and the error start-up fails with when one could not be applied
 * (README.md lists the patches; docs/adr/0001-kafka-client.md says why Hookline owns them).
 */

/** The kafkajs release every patch reproduces or replaces code of; package.json pins it exactly. */
export const KAFKAJS_VERSION = '2.2.4';

/** The patches, by the name the README, the error and the start-up log use. */
export type PatchName =
  | 'group-messages'
  | 'request-queue-timer'
  | 'produce-encoding'
  | 'fetch-decoding'
  | 'runner-stop'
  | 'compression-codecs'
  | 'metadata-refresh';

/** What applying a patch did: in place now ('already applied': by an earlier call), or why not. */
export type PatchResult =
  | { patch: PatchName; status: 'applied' | 'already applied' }
  | { patch: PatchName; status: 'not applied'; reason: string }
  /** Only the preload, under jest, whose module registry makes it impossible (group-messages.ts). */
  | { patch: PatchName; status: 'skipped'; reason: string };

/** A patch of the fork could not be applied: the process must not run without it. */
export class KafkajsPatchError extends HooklineError {
  readonly retriable = false;
  readonly code = 'kafkajs_patch_not_applied';
  constructor(
    readonly patch: PatchName,
    readonly reason: string,
  ) {
    super(
      `kafkajs patch '${patch}' was not applied: ${reason} (see src/kafka/kafkajs-fork/README.md; kafkajs must be exactly ${KAFKAJS_VERSION})`,
    );
  }
}

export const applied = (patch: PatchName, already = false): PatchResult => ({
  patch,
  status: already ? 'already applied' : 'applied',
});

export const skipped = (patch: PatchName, reason: string): PatchResult => ({
  patch,
  status: 'skipped',
  reason,
});

export const notApplied = (patch: PatchName, reason: string): PatchResult => ({
  patch,
  status: 'not applied',
  reason,
});

/** Why the kafkajs `requireFrom` resolves is not the release the patches are written against. */
export function versionMismatch(requireFrom: NodeRequire): string | undefined {
  const { version } = requireFrom('kafkajs/package.json') as { version: string };
  return version === KAFKAJS_VERSION ? undefined : `kafkajs ${version} is installed`;
}

/**
 * Why `target` does not have the shape a patch replaces: each of `methods` a function of the given
 * number of declared parameters (kafkajs's own, counted as `Function.length` counts them).
 */
export function shapeMismatch(
  what: string,
  target: Record<string, unknown> | undefined,
  methods: Record<string, number>,
): string | undefined {
  if (target === undefined || target === null) return `${what} is missing`;
  for (const [name, arity] of Object.entries(methods)) {
    const method = target[name];
    if (typeof method !== 'function') return `${what}.${name} is not a function`;
    if (method.length !== arity) return `${what}.${name} takes ${method.length} parameters, not ${arity}`;
  }
  return undefined;
}

/** Throws a KafkajsPatchError for the first patch not applied; returns the results otherwise. */
export function assertApplied(results: PatchResult[]): PatchResult[] {
  for (const result of results) {
    if (result.status === 'not applied') throw new KafkajsPatchError(result.patch, result.reason);
  }
  return results;
}
