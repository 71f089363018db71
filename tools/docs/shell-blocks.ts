import type { Fence } from './markdown';

/**
 * What a fenced shell block of the docs is for, by its info string (docs/contributing/docs.md):
 *  - ```sh          runs verbatim with bash from the repository root and exits 0; the blocks of a
 *                   file run in order, in one shell;
 *  - ```sh service  starts Hookline and does not return: started in the background, the later
 *                   `sh` blocks run once `GET /readyz` answers 200, then it is stopped;
 *  - ```sh example  for reading only, never run.
 * Other shells (`bash`, `shell`, `console`, …) are refused so that one word decides.
 */
export type ShellBlockKind = 'run' | 'service' | 'example';

export type FenceClass =
  { kind: ShellBlockKind } | { kind: 'not-shell' } | { kind: 'invalid'; reason: string };

const OTHER_SHELLS = new Set(['bash', 'shell', 'zsh', 'console', 'shellsession', 'sh-session']);
const MARKERS: Readonly<Record<string, ShellBlockKind>> = {
  '': 'run',
  service: 'service',
  example: 'example',
};
const FENCES = '```sh, ```sh service or ```sh example';

export function classifyFence(info: string): FenceClass {
  const [language = '', ...words] = info.trim().split(/\s+/);
  const lower = language.toLowerCase();
  if (OTHER_SHELLS.has(lower)) return { kind: 'invalid', reason: `\`\`\`${info.trim()}: use ${FENCES}` };
  if (lower !== 'sh') return { kind: 'not-shell' };
  const kind = MARKERS[words.join(' ')];
  if (kind === undefined) return { kind: 'invalid', reason: `\`\`\`${info.trim()}: use ${FENCES}` };
  return { kind };
}

/** One thing docs:try does, in order: (re)start a service, or run a block in the shared shell. */
export interface TryStep {
  kind: 'service' | 'run';
  fence: Fence;
}

export interface TryPlan {
  steps: TryStep[];
  /** `sh service` blocks that need not run: a later one replaces them before any `sh` block. */
  replaced: Fence[];
}

/**
 * Which blocks of a file docs:try runs, in order. A `sh service` block starts (replacing the
 * service running, if any) just before the next `sh` block; of consecutive `sh service` blocks
 * with no `sh` block between them only the last runs. A `sh service` block with no `sh` block
 * after it still runs, to show that it starts.
 */
export function tryPlan(fences: readonly Fence[]): TryPlan {
  const steps: TryStep[] = [];
  const replaced: Fence[] = [];
  let pending: Fence | undefined;
  for (const fence of fences) {
    const { kind } = classifyFence(fence.info);
    if (kind === 'service') {
      if (pending) replaced.push(pending);
      pending = fence;
    } else if (kind === 'run') {
      if (pending) steps.push({ kind: 'service', fence: pending });
      pending = undefined;
      steps.push({ kind: 'run', fence });
    }
  }
  if (pending) steps.push({ kind: 'service', fence: pending });
  return { steps, replaced };
}
