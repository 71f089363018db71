import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, promises as fs, readFileSync } from 'node:fs';
import type { Logger } from '../../src/observability/logger';
import { track } from './cleanup';
import { isPidAlive, terminateGroup } from './pids';
import { SUPERVISOR_NAME, SUPERVISOR_SCRIPT } from './supervisor';

/** How a supervised process is tied to its owner. */
export interface Supervision {
  /** Pid whose death stops the process; null watches nothing (a detached stack). */
  watchParentPid: number | null;
  /**
   * When this file exists, the supervisor watches the pid on its first line instead (0: none):
   * the stack was handed over to a state file (`npm run stack -- up`).
   */
  releaseFile: string;
}

export interface ProcessSpec {
  /** Short name for logs and errors: `kafka`, `registry`, `mvn`. */
  name: string;
  command: string;
  args: string[];
  cwd: string;
  /** stdout and stderr of the program go here. */
  logFile: string;
  /** Deleted by the supervisor if it stops the program because the owner died. */
  cleanupDir: string;
  env?: NodeJS.ProcessEnv;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

/** Default time between SIGTERM and SIGKILL when stopping. */
export const STOP_GRACE_MS = 15_000;

/**
 * A program running under the bash supervisor (see supervisor.ts), in its own process group.
 * `pid` is the supervisor's pid and the group id; `programPid` the program's own pid.
 */
export class SupervisedProcess {
  readonly pid: number;
  readonly exited: Promise<ProcessExit>;
  private exit: ProcessExit | undefined;
  private stopping: Promise<void> | undefined;
  private readonly untrack: () => void;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly logFile: string,
    private readonly pidFile: string,
    /** The folder the supervisor deletes if the owner dies. */
    readonly cleanupDir: string,
    exited: Promise<ProcessExit>,
  ) {
    this.pid = child.pid ?? -1;
    this.exited = exited.then((exit) => {
      this.exit = exit;
      return exit;
    });
    this.untrack = track({ stop: () => this.stop(), killNow: () => this.killNow() });
    void this.exited.then(() => {
      if (!this.isRunning()) this.untrack();
    });
  }

  static spawn(options: { spec: ProcessSpec; supervision: Supervision; logger: Logger }): SupervisedProcess {
    const { spec, supervision, logger } = options;
    const pidFile = `${spec.logFile}.pid`;
    const logFd = openSync(spec.logFile, 'a');
    try {
      const child = spawn(
        'bash',
        [
          '-c',
          SUPERVISOR_SCRIPT,
          SUPERVISOR_NAME,
          String(supervision.watchParentPid ?? 0),
          supervision.releaseFile,
          spec.cleanupDir,
          pidFile,
          spec.command,
          ...spec.args,
        ],
        { cwd: spec.cwd, env: spec.env ?? process.env, detached: true, stdio: ['ignore', logFd, logFd] },
      );
      const exited = new Promise<ProcessExit>((resolve) => {
        child.once('error', (error) => resolve({ code: null, signal: null, error }));
        child.once('exit', (code, signal) => resolve({ code, signal }));
      });
      if (child.pid === undefined) {
        logger.error({ name: spec.name }, 'could not spawn the supervisor (is bash installed?)');
      }
      logger.debug(
        { name: spec.name, pid: child.pid, command: spec.command, args: spec.args },
        'process started',
      );
      return new SupervisedProcess(spec.name, child, spec.logFile, pidFile, spec.cleanupDir, exited);
    } finally {
      closeSync(logFd);
    }
  }

  /** Pid of the program itself, once the supervisor has written it. */
  programPid(): number | undefined {
    try {
      const pid = Number(readFileSync(this.pidFile, 'utf8').trim());
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /** The exit of the supervisor (and so of the program), if it happened. */
  exitInfo(): ProcessExit | undefined {
    return this.exit;
  }

  isRunning(): boolean {
    const program = this.programPid();
    return (this.exit === undefined && this.pid > 0) || (program !== undefined && isPidAlive(program));
  }

  /** SIGTERM the group, SIGKILL after `graceMs`. Idempotent; resolves when everything is gone. */
  stop(options: { graceMs?: number } = {}): Promise<void> {
    this.stopping ??= (async () => {
      const program = this.programPid();
      const pids = [this.pid, ...(program === undefined ? [] : [program])].filter((pid) => pid > 0);
      await terminateGroup({ pgid: this.pid, pids, graceMs: options.graceMs ?? STOP_GRACE_MS });
      this.untrack();
    })();
    return this.stopping;
  }

  /**
   * Kills the program with SIGKILL, as a crash would (the supervisor then exits with it, leaving
   * the data in place); resolves with the supervisor's exit. The owner can spawn the program again.
   */
  async crash(): Promise<ProcessExit> {
    const program = this.programPid();
    if (program !== undefined && isPidAlive(program)) {
      try {
        process.kill(program, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    return this.exited;
  }

  /**
   * Hands the process over (detached stack): it is no longer stopped when this process exits and
   * no longer keeps this process's event loop alive. Create the supervision's release file first.
   */
  release(): void {
    this.untrack();
    this.child.unref();
  }

  /** From the owner's exit hook: SIGHUP tells the supervisor to delete the data once the owner is gone. */
  private killNow(): void {
    if (this.pid <= 0) return;
    try {
      process.kill(-this.pid, 'SIGHUP');
    } catch {
      // Gone.
    }
  }

  /** The last `lines` lines of the log, for error messages. */
  async logTail(options: { lines: number } = { lines: 40 }): Promise<string> {
    return tailFile({ file: this.logFile, lines: options.lines });
  }
}

/** Last `lines` lines of a text file (reads at most the last 64 KiB); '' when missing. */
export async function tailFile(options: { file: string; lines: number }): Promise<string> {
  const maxBytes = 65_536;
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(options.file, 'r');
    const { size } = await handle.stat();
    const start = Math.max(0, size - maxBytes);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    return buffer
      .toString('utf8')
      .split('\n')
      .slice(-options.lines - 1)
      .join('\n');
  } catch {
    return '';
  } finally {
    await handle?.close();
  }
}
