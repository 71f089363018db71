import { uniquePrefix } from '../support/app';
import { eventually } from '../support/eventually';
import { childEnv, exited, spawnHookline } from '../support/process';

/** The JSON log lines of a child's output at warn (40) or above, with what they say. */
function warningsAndErrors(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; err?: unknown; error?: unknown })
    .filter((entry) => entry.level >= 40)
    .map((entry) => `${entry.level} ${entry.msg} ${JSON.stringify(entry.err ?? entry.error ?? '')}`);
}

/**
 * A first start, as a new user makes it: every role, two processes (their consumer groups form
 * while both join), topics and groups that do not exist yet. A healthy start logs no warning and no
 * error, up to "Hookline is up" and in the seconds after it while the groups settle: kafkajs's
 * rebalancing heartbeats were logged at error, and the retry consumer's first takeovers met a
 * TypeError inside kafkajs (kafkajs-fork/metadata-refresh.ts).
 */
test('a first start on new topics and groups logs no warning and no error', async () => {
  const child = spawnHookline({
    ...childEnv({
      prefix: uniquePrefix(),
      roles: 'ingest,router,worker,audiences',
      adminToken: 'clean-start-token',
    }),
    HOOKLINE_WORKERS: '2',
    HOOKLINE_LOG_LEVEL: 'info',
  });
  let exitCode: number | null | undefined;
  void exited(child).then((code) => (exitCode = code));
  const output = () => child.output.join('');
  try {
    await eventually(() => output().includes('Hookline is up') || exitCode !== undefined, {
      timeoutMs: 120_000,
      what: 'Hookline to be up',
    });
    expect(exitCode).toBeUndefined();
    // After ready, the groups settle (the second process's members join): every group of both
    // processes has logged its join. Absence is then checked over what was logged until then.
    await eventually(() => (output().match(/"msg":"group joined"/g) ?? []).length >= 6, {
      timeoutMs: 60_000,
      what: 'the consumer groups of both processes to be joined',
    });
    expect(warningsAndErrors(output())).toEqual([]);
  } finally {
    child.kill('SIGTERM');
    await exited(child);
  }
});
