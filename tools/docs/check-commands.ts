import { readFileSync } from 'node:fs';
import path from 'node:path';
import { classifyCommand, shellCommands } from './commands';
import { splitFences } from './markdown';
import type { Problem } from './problems';
import { classifyFence } from './shell-blocks';

/**
 * The static half of the shell-block convention (docs/contributing/docs.md): every shell block of
 * `files` is ```sh, ```sh service or ```sh example, and each npm script a `sh` or `sh service`
 * block names exists in package.json. `npm run docs:try` runs the blocks.
 */
export function checkCommands(root: string, files: readonly string[]): Problem[] {
  const scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: object })
    .scripts;
  const problems: Problem[] = [];
  for (const file of files) {
    for (const fence of splitFences(readFileSync(path.join(root, file), 'utf8')).fences) {
      const block = classifyFence(fence.info);
      if (block.kind === 'invalid') problems.push({ file, line: fence.line, message: block.reason });
      if (block.kind !== 'run' && block.kind !== 'service') continue;
      for (const { text, line } of shellCommands(fence)) {
        const check = classifyCommand(text);
        if (check.kind === 'npm-script' && !Object.hasOwn(scripts, check.script))
          problems.push({ file, line, message: `\`${text}\`: package.json has no script "${check.script}"` });
      }
    }
  }
  return problems;
}
