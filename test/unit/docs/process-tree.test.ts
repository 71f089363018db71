import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isPidAlive } from '../../../tools/devstack/pids';
import {
  parseStat,
  processTable,
  stopTree,
  treeOf,
  type ProcessInfo,
} from '../../../tools/docs/process-tree';

describe('parseStat', () => {
  it.each([
    ['42 (bash) S 1 42 42 0', { pid: 42, ppid: 1, pgid: 42 }],
    ['7 (a (b) c) R 5 6 6 0', { pid: 7, ppid: 5, pgid: 6 }],
    ['garbage', undefined],
  ])('%j', (stat, info) => {
    expect(parseStat(stat)).toEqual(info);
  });
});

describe('treeOf: a group and everything its members started', () => {
  const p = (pid: number, ppid: number, pgid: number): ProcessInfo => ({
    pid,
    ppid,
    pgid,
    command: `p${pid}`,
  });
  // 10 leads the group (bash); 11 npm, 12 node; 20 a supervisor in a group of its own, 21 its java;
  // 13 a member re-parented to init; 30 someone else's.
  const table = [
    p(10, 1, 10),
    p(11, 10, 10),
    p(12, 11, 10),
    p(20, 12, 20),
    p(21, 20, 20),
    p(13, 1, 10),
    p(30, 1, 30),
  ];

  it.each([
    ['the whole tree, across groups', table, [10, 11, 12, 13, 20, 21]],
    ['the leader gone: its members, and theirs', table.filter((x) => x.pid !== 10), [11, 12, 13, 20, 21]],
    ['nothing of another group', [p(30, 1, 30), p(31, 30, 30)], []],
  ])('%s', (_name, rows, pids) => {
    expect(
      treeOf(rows, 10)
        .map((x) => x.pid)
        .sort((a, b) => a - b),
    ).toEqual(pids);
  });
});

describe('stopTree', () => {
  it('stops the group and a descendant that left it (setsid), SIGKILL for what ignores SIGTERM', async () => {
    // The escaped process says its pid once setsid has moved it to a session and group of its own.
    const child = spawn(
      'bash',
      ['-c', `trap '' TERM; setsid bash -c 'echo $$; exec sleep 300' & sleep 300`],
      {
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    const escaped = await new Promise<number>((resolve) =>
      child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString()))),
    );
    expect(isPidAlive(escaped)).toBe(true);
    expect(readFileSync(`/proc/${escaped}/stat`, 'utf8')).not.toContain(` ${child.pid} ${child.pid} `);
    expect(treeOf(processTable(), child.pid!).map((x) => x.pid)).toContain(escaped);

    const stopped = await stopTree({ pgid: child.pid!, graceMs: 500 });

    expect(stopped).toMatchObject({ left: [], killed: true });
    expect(stopped.seen).toBeGreaterThanOrEqual(3);
    expect(isPidAlive(escaped)).toBe(false);
    expect(isPidAlive(child.pid!)).toBe(false);
  });
});
