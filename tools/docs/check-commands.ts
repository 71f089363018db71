import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { classifyCommand, fenceKind, shellCommands } from './commands';
import { splitFences } from './markdown';
import type { Problem } from './problems';

/**
 * README commands the check runs: quick, side-effect free, no Kafka needed. Longer ones
 * (`npm start`, `npm test`) are checked for their npm script only. docs/contributing/docs.md
 * explains the convention.
 */
export const RUNNABLE_COMMANDS: readonly string[] = [
  'npm run hookline -- --help',
  'npm run -s hookline -- --help',
];

const RUN_TIMEOUT_MS = 120_000;

/** Runs `command` in a shell at `root`; resolves to a problem text, or undefined when it exits 0. */
function run(root: string, command: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', command], { cwd: root, timeout: RUN_TIMEOUT_MS }, (err, _stdout, stderr) => {
      if (!err) return resolve(undefined);
      const last = stderr.trim().split('\n').pop() ?? '';
      const how = err.killed
        ? `did not finish within ${RUN_TIMEOUT_MS / 1_000} s`
        : `failed (exit ${err.code})`;
      resolve(`${how}${last ? `: ${last}` : ''}`);
    });
  });
}

const shorten = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}...` : text);

/**
 * Every shell block of `file` is marked as an example (```sh example), or each of its commands is
 * checked: run (RUNNABLE_COMMANDS), or its npm script exists.
 */
export async function checkCommands(root: string, file: string): Promise<Problem[]> {
  const scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: object })
    .scripts;
  const problems: Problem[] = [];
  const runs: Promise<void>[] = [];
  for (const fence of splitFences(readFileSync(path.join(root, file), 'utf8')).fences) {
    if (fenceKind(fence.info) !== 'commands') continue;
    for (const { text, line } of shellCommands(fence)) {
      const check = classifyCommand(text, RUNNABLE_COMMANDS);
      if (check.kind === 'run')
        runs.push(
          run(root, text).then((failure) => {
            if (failure) problems.push({ file, line, message: `\`${text}\` ${failure}` });
          }),
        );
      else if (check.kind === 'npm-script' && !Object.hasOwn(scripts, check.script))
        problems.push({ file, line, message: `\`${text}\`: package.json has no script "${check.script}"` });
      else if (check.kind === 'unchecked')
        problems.push({
          file,
          line,
          message:
            `\`${shorten(text)}\` cannot be checked: mark the block of line ${fence.line} as an example ` +
            `(\`\`\`${fence.info.split(/\s+/)[0]} example), or list the command in RUNNABLE_COMMANDS ` +
            '(tools/docs/check-commands.ts) if it is quick and side-effect free',
        });
    }
  }
  await Promise.all(runs);
  return problems;
}
