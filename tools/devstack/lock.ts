import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../../src/observability/logger';
import { StackError } from './errors';
import { isPidAlive } from './pids';
import { delay } from './wait';

export interface WithFileLockOptions<T> {
  /** The lock file; its folder must exist. */
  lockPath: string;
  /** How long to wait for another holder before failing. */
  timeoutMs: number;
  logger: Logger;
  /** Runs while the lock is held. */
  task: () => Promise<T>;
  pollIntervalMs?: number;
}

interface LockOwner {
  pid: number;
  host: string;
  acquiredAt: string;
}

/**
 * A cross-process lock: a file created with O_EXCL holding the owner's pid. A lock whose owner
 * (on this host) is dead is stale and taken over, so a SIGKILLed holder never blocks the next run.
 */
export async function withFileLock<T>(options: WithFileLockOptions<T>): Promise<T> {
  const { lockPath, timeoutMs, logger, task, pollIntervalMs = 250 } = options;
  const deadline = Date.now() + timeoutMs;
  let waitingLogged = false;
  while (!(await tryAcquire(lockPath))) {
    if (await breakIfStale(lockPath, logger)) continue;
    if (Date.now() >= deadline) {
      throw new StackError(
        `timed out after ${timeoutMs} ms waiting for lock ${lockPath} (held by ${await describeOwner(lockPath)}); ` +
          'delete the file if its owner is gone',
        { stage: 'lock' },
      );
    }
    if (!waitingLogged) {
      logger.info(
        { lockPath, owner: await describeOwner(lockPath) },
        'waiting for another process holding the lock',
      );
      waitingLogged = true;
    }
    await delay(pollIntervalMs);
  }
  try {
    return await task();
  } finally {
    await fs.rm(lockPath, { force: true });
  }
}

async function tryAcquire(lockPath: string): Promise<boolean> {
  const owner: LockOwner = { pid: process.pid, host: os.hostname(), acquiredAt: new Date().toISOString() };
  try {
    await fs.writeFile(lockPath, JSON.stringify(owner), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

async function readOwner(lockPath: string): Promise<LockOwner | undefined> {
  try {
    const parsed: unknown = JSON.parse(await fs.readFile(lockPath, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null && 'pid' in parsed && 'host' in parsed) {
      return parsed as LockOwner;
    }
  } catch {
    // Missing, or being written right now.
  }
  return undefined;
}

async function describeOwner(lockPath: string): Promise<string> {
  const owner = await readOwner(lockPath);
  return owner ? `pid ${owner.pid} on ${owner.host}` : 'an unknown process';
}

/**
 * Takes a stale lock over by renaming it to a unique name first (atomic), then checking that the
 * renamed file is the stale one; a fresh lock grabbed by mistake is put back.
 */
async function breakIfStale(lockPath: string, logger: Logger): Promise<boolean> {
  const owner = await readOwner(lockPath);
  if (!owner || owner.host !== os.hostname() || isPidAlive(owner.pid)) return false;
  const aside = `${lockPath}.stale-${process.pid}-${Date.now()}`;
  try {
    await fs.rename(lockPath, aside);
  } catch {
    return false; // Someone else broke it first.
  }
  const moved = await readOwner(aside);
  if (moved && moved.pid === owner.pid && moved.acquiredAt === owner.acquiredAt) {
    await fs.rm(aside, { force: true });
    logger.warn({ lockPath, stalePid: owner.pid }, 'removed a stale lock left by a dead process');
    return true;
  }
  // We moved a live owner's fresh lock: put it back unless a new one exists by now.
  await fs.link(aside, lockPath).catch(() => undefined);
  await fs.rm(aside, { force: true });
  return false;
}

/** Folder of `lockPath`, created if missing. */
export async function ensureLockDir(lockPath: string): Promise<void> {
  await fs.mkdir(path.dirname(lockPath), { recursive: true });
}
