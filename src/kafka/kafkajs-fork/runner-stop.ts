import { createRequire } from 'node:module';
import { applied, notApplied, shapeMismatch, versionMismatch, type PatchResult } from './patch';

/**
 * kafkajs 2.2.4's consumer Runner ignores a stop that comes while it is joining the group.
 * `Runner.start` joins (`consumerGroup.joinAndSync()`) and only then sets `running`; `Runner.stop`
 * returns at once when `running` is false. So a consumer stopped while it joins (its first start,
 * or the restart that follows a crash) is dropped by kafkajs (`runner = null`) and then finishes
 * its join anyway: a member of the group that fetches, holds partitions and never leaves, until its
 * session times out or its fetches fail on the disconnected cluster; and then it never sends
 * LeaveGroup, so the group waits a session timeout for it. A process that stopped a consumer, say
 * to try its start-up again, found its own old member beside the new one.
 *
 * The replacement lets a stop during the start be seen. While the runner connects, `stop` marks
 * it and returns: the start then ends before it joins. While it joins, `stop` marks it and waits
 * (at most STOP_WAITS_FOR_JOIN_MS) for the join to end; once joined, the start leaves the group
 * instead of fetching. A start that fails after a stop is not reported as a crash.
 */

/** How long a stop waits for a join in progress to end (and leave) before it returns anyway. */
export const STOP_WAITS_FOR_JOIN_MS = 5_000;

const STARTING = Symbol('hookline.runner.starting');
const STOP_ASKED = Symbol('hookline.runner.stopAsked');

/** A start in progress: connecting (no member yet), then joining (JoinGroup and SyncGroup). */
interface Starting {
  phase: 'connecting' | 'joining';
  /** Resolves once the start ended: running, left, or failed. */
  ended: Promise<void>;
}

/** The fields and methods of kafkajs's Runner the replacement uses. */
export interface RunnerState {
  running: boolean;
  consumerGroup: {
    connect(): Promise<void>;
    joinAndSync(): Promise<void>;
    leave(): Promise<void>;
  };
  onCrash(err: unknown): unknown;
  scheduleFetchManager(): void;
  [STARTING]?: Starting;
  [STOP_ASKED]?: boolean;
}

export async function startRunner(this: RunnerState): Promise<unknown> {
  if (this.running) return undefined;
  let ended!: () => void;
  const starting: Starting = {
    phase: 'connecting',
    ended: new Promise<void>((resolve) => (ended = resolve)),
  };
  this[STARTING] = starting;
  this[STOP_ASKED] = false;
  const settle = () => {
    this[STARTING] = undefined;
    ended();
  };
  try {
    await this.consumerGroup.connect();
    if (this[STOP_ASKED]) {
      settle(); // stopped while connecting: no member was made, and none is
      return undefined;
    }
    starting.phase = 'joining';
    await this.consumerGroup.joinAndSync();
  } catch (err) {
    // Settled first: kafkajs's crash handler stops the consumer, and that stop waits for it.
    settle();
    if (this[STOP_ASKED]) return undefined; // stopped meanwhile: nothing to restart
    return this.onCrash(err);
  }
  if (this[STOP_ASKED]) {
    // Joined after the stop: leave, so the group does not wait a session timeout for this member.
    await this.consumerGroup.leave().catch(() => undefined);
    settle();
    return undefined;
  }
  settle();
  this.running = true;
  this.scheduleFetchManager();
  return undefined;
}

function stopRunnerWith(originalStop: (this: RunnerState) => Promise<void>) {
  return async function stopRunner(this: RunnerState): Promise<void> {
    const starting = this[STARTING];
    if (this.running || !starting) return originalStop.call(this);
    this[STOP_ASKED] = true;
    // Connecting (during a broker outage, most of a restart): the start sees the stop before it
    // joins, so there is nothing to wait for. Joining: wait, so the member leaves before kafkajs
    // disconnects its cluster.
    if (starting.phase === 'connecting') return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      starting.ended,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAITS_FOR_JOIN_MS))),
    ]);
    clearTimeout(timer);
  };
}

/**
 * Replaces kafkajs's Runner.start and Runner.stop, once per module registry: only on kafkajs
 * 2.2.4, whose Runner has the start this reproduces (connect, joinAndSync, then running).
 * `requireFrom` is for tests.
 */
export function fixRunnerStop(requireFrom: NodeRequire = createRequire(__filename)): PatchResult {
  const version = versionMismatch(requireFrom);
  if (version) return notApplied('runner-stop', version);
  const Runner = requireFrom('kafkajs/src/consumer/runner') as {
    prototype: { start: (this: RunnerState) => Promise<unknown>; stop: (this: RunnerState) => Promise<void> };
  };
  if (Runner.prototype.start === startRunner) return applied('runner-stop', true);
  const shape = shapeMismatch('kafkajs Runner.prototype', Runner.prototype, {
    start: 0,
    stop: 0,
    scheduleFetchManager: 0,
  });
  if (shape) return notApplied('runner-stop', shape);
  Runner.prototype.start = startRunner;
  Runner.prototype.stop = stopRunnerWith(Runner.prototype.stop);
  return applied('runner-stop');
}
