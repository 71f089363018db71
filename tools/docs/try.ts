/**
 * `npm run docs:try [-- file.md …]` (default README.md): runs a file's shell blocks as
 * docs/contributing/docs.md says: each `sh service` block in the background (its process group,
 * and the local stack `npm start` may start, stopped at the end and checked gone) until
 * `GET /readyz` answers 200, and the `sh` blocks in order in one bash with `set -euo pipefail`.
 * Fails (exit 1) with the failing block's output, when a port the blocks need is already taken,
 * or when anything the blocks started is still running after the end. `npm run docs:check` is its
 * fast, static half.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './generated';
import { splitFences } from './markdown';
import { classifyFence, tryPlan } from './shell-blocks';
import { runPlan } from './try-runner';
import { portsOf } from './try-script';
import { busyPorts } from './try-service';

/** A local stack starts in 20–60 s on a small machine; a cached download is assumed (CI runs npm test first). */
const READY_TIMEOUT_MS = 120_000;
const BLOCKS_TIMEOUT_MS = 60_000;

const log = (text: string) => process.stdout.write(text);

async function tryFile(file: string): Promise<boolean> {
  const { fences } = splitFences(readFileSync(path.join(ROOT, file), 'utf8'));
  const invalid = fences.flatMap((fence) => {
    const block = classifyFence(fence.info);
    return block.kind === 'invalid' ? [`${file}:${fence.line}: ${block.reason}`] : [];
  });
  if (invalid.length > 0) {
    log(`${invalid.join('\n')}\ndocs:try: ${file}: fix the blocks first (npm run docs:check)\n`);
    return false;
  }
  const plan = tryPlan(fences);
  if (plan.steps.length === 0) {
    log(`docs:try: ${file}: no sh or sh service block\n`);
    return true;
  }
  const ports = portsOf(plan, process.env);
  const busy = await busyPorts(ports);
  if (busy.length > 0) {
    log(
      `docs:try: ${file} needs the ports ${ports.join(', ')}; ${busy.map((p) => `port ${p}`).join(' and ')} ` +
        `${busy.length > 1 ? 'are' : 'is'} in use already (see \`ss -ltnp\`): stop what listens there first\n`,
    );
    return false;
  }
  const startedMs = Date.now();
  log(`docs:try: ${file}: ${plan.steps.length} step(s), ports ${ports.join(', ')}\n`);
  const ok = await runPlan({
    file,
    plan,
    root: ROOT,
    env: process.env,
    readyTimeoutMs: READY_TIMEOUT_MS,
    blocksTimeoutMs: BLOCKS_TIMEOUT_MS,
    log,
  });
  log(`docs:try: ${file}: ${ok ? 'ok' : 'failed'} in ${((Date.now() - startedMs) / 1_000).toFixed(1)} s\n`);
  return ok;
}

async function main(): Promise<void> {
  const files = process.argv.slice(2);
  let ok = true;
  for (const file of files.length > 0 ? files : ['README.md']) ok = (await tryFile(file)) && ok;
  process.exit(ok ? 0 : 1);
}

main().catch((err: unknown) => {
  process.stderr.write(`docs:try: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
