import { splitFences } from '../../../tools/docs/markdown';
import { classifyFence, tryPlan } from '../../../tools/docs/shell-blocks';

describe('classifyFence: what an info string makes of a block', () => {
  it.each([
    ['sh', 'run'],
    ['sh service', 'service'],
    ['sh example', 'example'],
    ['  sh   service ', 'service'],
    ['SH', 'run'],
    ['ts', 'not-shell'],
    ['json example', 'not-shell'],
    ['', 'not-shell'],
    ['mermaid', 'not-shell'],
    ['bash', 'invalid'],
    ['shell example', 'invalid'],
    ['console', 'invalid'],
    ['sh services', 'invalid'],
    ['sh example service', 'invalid'],
    ['sh service example', 'invalid'],
  ])('%j → %s', (info, kind) => {
    expect(classifyFence(info).kind).toBe(kind);
  });

  it('says which fences to use', () => {
    expect(classifyFence('bash')).toEqual({
      kind: 'invalid',
      reason: '```bash: use ```sh, ```sh service or ```sh example',
    });
  });
});

describe('tryPlan: which blocks docs:try runs, in which order', () => {
  /** A Markdown file whose blocks are given by their info strings; each body names its block. */
  const markdown = (...infos: string[]) =>
    infos.map((info, i) => `text\n\n\`\`\`${info}\nblock ${i}\n\`\`\`\n`).join('\n');
  const plan = (...infos: string[]) => {
    const result = tryPlan(splitFences(markdown(...infos)).fences);
    return {
      steps: result.steps.map((s) => `${s.kind} ${s.fence.body[0]!.slice(6)}`),
      replaced: result.replaced.map((f) => f.body[0]!.slice(6)),
    };
  };

  it.each([
    ['nothing to run', ['ts', 'sh example', 'json'], [], []],
    ['sh blocks in order', ['sh', 'ts', 'sh'], ['run 0', 'run 2'], []],
    [
      'a service before the blocks that need it',
      ['sh service', 'sh', 'sh'],
      ['service 0', 'run 1', 'run 2'],
      [],
    ],
    [
      'the README: set up, an example, the try-it service, its commands',
      ['mermaid', 'sh service', 'sh example', 'sh service', 'sh'],
      ['service 3', 'run 4'],
      ['1'],
    ],
    [
      'consecutive services: only the last runs',
      ['sh service', 'sh service', 'sh service', 'sh'],
      ['service 2', 'run 3'],
      ['0', '1'],
    ],
    [
      'a later service replaces the running one between blocks',
      ['sh service', 'sh', 'sh service', 'sh'],
      ['service 0', 'run 1', 'service 2', 'run 3'],
      [],
    ],
    [
      'blocks before any service run without one',
      ['sh', 'sh service', 'sh'],
      ['run 0', 'service 1', 'run 2'],
      [],
    ],
    ['a last service still runs, to show it starts', ['sh', 'sh service'], ['run 0', 'service 1'], []],
    ['invalid fences are not run', ['bash', 'sh services', 'sh'], ['run 2'], []],
  ])('%s', (_name, infos, steps, replaced) => {
    expect(plan(...infos)).toEqual({ steps, replaced });
  });
});
