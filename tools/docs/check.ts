/**
 * `npm run docs:check`: the docs say what the code does. Fails (exit 1), one line per problem as
 * `file:line: what is wrong`, when
 *  - a relative link of README.md, docs/**, bench/README.md or packages/*\/README.md does not
 *    resolve (file, or heading anchor);
 *  - the configuration reference and the config schema disagree on the variables, or the docs
 *    mention a HOOKLINE_/KAFKA_/SCHEMA_REGISTRY_ variable nobody reads;
 *  - a generated reference is out of date (`npm run docs:gen`);
 *  - a shell block is not ```sh, ```sh service or ```sh example, or names an npm script that
 *    package.json does not have.
 * It runs nothing: `npm run docs:try` runs README.md's blocks. docs/contributing/docs.md describes
 * the conventions.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkCommands } from './check-commands';
import { checkEnv } from './check-env';
import { checkLinks } from './check-links';
import { docFiles } from './files';
import { ROOT, generatedDocs } from './generated';
import { formatProblem, type Problem } from './problems';

/** A generated file differs from what its sources give: where the first difference is. */
async function checkGenerated(root: string): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const doc of await generatedDocs()) {
    let current: string;
    try {
      current = readFileSync(path.join(root, doc.file), 'utf8');
    } catch {
      problems.push({ file: doc.file, message: 'missing: run npm run docs:gen' });
      continue;
    }
    if (current === doc.text) continue;
    const have = current.split('\n');
    const want = doc.text.split('\n');
    const index = want.findIndex((line, i) => have[i] !== line);
    const line = (index < 0 ? want.length : index) + 1;
    problems.push({ file: doc.file, line, message: 'out of date with its sources: run npm run docs:gen' });
  }
  return problems;
}

async function main(): Promise<void> {
  const files = docFiles(ROOT);
  const problems = [
    ...checkLinks(ROOT, files),
    ...checkEnv(ROOT, files),
    ...(await checkGenerated(ROOT)),
    ...checkCommands(ROOT, files),
  ];
  for (const p of problems) process.stderr.write(`${formatProblem(p)}\n`);
  process.stdout.write(
    `docs:check: ${files.length} files, ${problems.length === 0 ? 'no problems' : `${problems.length} problem(s)`}\n`,
  );
  if (problems.length > 0) process.exit(1);
}

main().catch((err: unknown) => {
  process.stderr.write(`docs:check: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
