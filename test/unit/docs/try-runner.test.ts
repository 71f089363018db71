import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isPidAlive } from '../../../tools/devstack/pids';
import { findFreePorts } from '../../../tools/devstack/ports';
import { splitFences } from '../../../tools/docs/markdown';
import { tryPlan } from '../../../tools/docs/shell-blocks';
import { runPlan } from '../../../tools/docs/try-runner';

/**
 * docs:try's runner on real processes, with a small HTTP server standing in for Hookline: it
 * answers /readyz with 200 (after `delayMs`) and writes its pid where the test can check it is gone.
 */
describe('runPlan', () => {
  let dir: string;
  let port: number;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'docs-try-'));
    [port] = await findFreePorts({ count: 1 });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const block = (info: string, ...body: string[]) => ['```' + info, ...body, '```', ''].join('\n');
  const service = (delayMs = 300) =>
    block(
      'sh service',
      `HOOKLINE_HTTP_PORT=${port} node -e 'require("fs").writeFileSync("${dir}/service.pid", String(process.pid)); ` +
        `setTimeout(() => require("http").createServer((q, s) => s.end("ok")).listen(process.env.HOOKLINE_HTTP_PORT), ${delayMs})'`,
    );
  const run = async (markdown: string, timeouts = { readyTimeoutMs: 15_000, blocksTimeoutMs: 15_000 }) => {
    let log = '';
    const ok = await runPlan({
      file: 'TRY.md',
      plan: tryPlan(splitFences(markdown).fences),
      root: dir,
      env: process.env,
      ...timeouts,
      log: (text) => (log += text),
    });
    return { ok, log };
  };
  const pidIn = (file: string) => Number(readFileSync(path.join(dir, file), 'utf8'));

  it('starts the service, runs the blocks once it is ready, then stops everything', async () => {
    const markdown = [
      service(),
      block(
        'sh',
        `curl -sf http://127.0.0.1:${port}/readyz && echo`,
        'sleep 300 &',
        'echo "$!" > background.pid',
      ),
      block('sh', 'echo second'),
    ].join('\n');
    const { ok, log } = await run(markdown);
    expect(log).toMatch(/ready in .*readyz answers 200/);
    expect(log).toMatch(/^ok TRY\.md:\d+ \(sh\) .*\n {4}ok\n/m);
    expect(log).toContain('second');
    expect(log).toMatch(/stopped the blocks' processes: 1 process\(es\), all gone/);
    expect(ok).toBe(true);
    expect(isPidAlive(pidIn('background.pid'))).toBe(false);
    expect(isPidAlive(pidIn('service.pid'))).toBe(false);
  });

  it('fails with the output of the block that failed, and runs no later block', async () => {
    const markdown = [
      service(),
      block('sh', 'echo "before it fails"', 'exit 3'),
      block('sh', 'echo never'),
    ].join('\n');
    const { ok, log } = await run(markdown);
    expect(ok).toBe(false);
    expect(log).toMatch(/✗ TRY\.md:\d+ \(sh\) .*\n {4}before it fails\n/);
    expect(log).toMatch(/docs:try: TRY\.md:\d+ \(sh\) exited with 3/);
    expect(log).not.toContain('never');
    expect(isPidAlive(pidIn('service.pid'))).toBe(false);
  });

  it.each([
    [
      'a service that exits',
      () => block('sh service', 'echo "no Kafka here"; exit 4'),
      /no Kafka here[^]*exited \(code 4\) before it was ready/,
    ],
    ['a service never ready in time', () => service(60_000), /readyz did not answer 200 within 1 s/],
  ])('fails on %s', async (_name, serviceBlock, why) => {
    const markdown = [block('sh', 'echo first'), serviceBlock(), block('sh', 'echo never')].join('\n');
    const { ok, log } = await run(markdown, { readyTimeoutMs: 1_000, blocksTimeoutMs: 15_000 });
    expect(ok).toBe(false);
    expect(log).toMatch(why);
    expect(log).toMatch(/^ok TRY\.md:1 \(sh\) .*\n {4}first\n/m);
    expect(log).not.toContain('✗');
    expect(log).not.toContain('never');
  });

  it('stops blocks that outlast their time', async () => {
    const { ok, log } = await run(block('sh', 'echo waiting', 'sleep 300'), {
      readyTimeoutMs: 1_000,
      blocksTimeoutMs: 500,
    });
    expect(ok).toBe(false);
    expect(log).toMatch(/still running after the blocks' 0\.5 s/);
    expect(log).toContain('waiting');
  });
});
