import { createRequire } from 'node:module';

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
 * The replacement lets a stop during the join be seen: `stop` marks it and waits (at most
 * STOP_WAITS_FOR_JOIN_MS) for the join to end; `start`, once joined, leaves the group instead of
 * fetching when a stop came meanwhile, and does not report a failed join as a crash then.
 */

/** How long a stop waits for a join in progress to end (and leave) before it returns anyway. */
export const STOP_WAITS_FOR_JOIN_MS = 5_000;

const JOINING = Symbol('hookline.runner.joining');
const STOP_ASKED = Symbol('hookline.runner.stopAsked');

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
  [JOINING]?: Promise<void>;
  [STOP_ASKED]?: boolean;
}

export async function startRunner(this: RunnerState): Promise<unknown> {
  if (this.running) return undefined;
  let joined!: () => void;
  this[JOINING] = new Promise<void>((resolve) => (joined = resolve));
  this[STOP_ASKED] = false;
  const settle = () => {
    this[JOINING] = undefined;
    joined();
  };
  try {
    await this.consumerGroup.connect();
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
    const joining = this[JOINING];
    if (this.running || !joining) return originalStop.call(this);
    this[STOP_ASKED] = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      joining,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAITS_FOR_JOIN_MS))),
    ]);
    clearTimeout(timer);
  };
}

/** What the installed kafkajs's Runner.start looks like when it has the bug (2.2.4). */
const BUGGY_SHAPE =
  /await this\.consumerGroup\.joinAndSync\(\)[\s\S]*return this\.onCrash\(e\)[\s\S]*this\.running = true/;

export type RunnerStopFix = 'applied' | 'already applied' | 'not needed';

/**
 * Replaces kafkajs's Runner.start and Runner.stop, once per process. A kafkajs whose start does
 * not have the 2.2.4 shape is left alone ('not needed'). `requireFrom` is for tests.
 */
export function fixRunnerStop(requireFrom: NodeRequire = createRequire(__filename)): RunnerStopFix {
  const Runner = requireFrom('kafkajs/src/consumer/runner') as {
    prototype: { start: (this: RunnerState) => Promise<unknown>; stop: (this: RunnerState) => Promise<void> };
  };
  const current = Runner.prototype.start;
  if (current === startRunner) return 'already applied';
  if (!BUGGY_SHAPE.test(current.toString())) return 'not needed';
  Runner.prototype.start = startRunner;
  Runner.prototype.stop = stopRunnerWith(Runner.prototype.stop);
  return 'applied';
}
