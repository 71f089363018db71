/**
 * Micro-benchmark of a Dispatcher lane's queue (issue 41): the scan it was (an array walked from
 * its start on every pump, skipping the tasks whose user has a run, spliced) against KeyedQueue
 * (per-user FIFOs, a heap of the users whose next task may start), no Kafka, no HTTP.
 *
 * One lane with the defaults, 50 runs at once (HOOKLINE_DESTINATION_CONCURRENCY) and up to 1,000
 * tasks in it (HOOKLINE_WORKER_CONCURRENCY, the consumer's bound), fed a backlog of N tasks: a
 * task starts at once when the lane has room and its user no run (the admission policy), else
 * waits; runs end in the order they started, and each end pumps the lane and lets the next tasks
 * in. Users:
 *  - `zipf`: 1,000 users, the k-th with a weight of 1/k^1.1 (a few heavy users, a long tail),
 *    and one task in ten from an anonymous id of its own, as a real client's traffic has;
 *  - `even`: 1,000 users in turn, as the bench's `e2e` spreads its events.
 * Both structures start the same tasks in the same order (checked: a digest of the order).
 * Repetitions interleaved (scan, keyed, scan, keyed, ...), best of each, in µs of CPU per task.
 *
 *   npx tsx bench/micro/dispatcher-queue.ts [tasks, default 50000] [repetitions, default 5]
 */
import { KeyedQueue, type KeyedNode } from '../../src/delivery/keyed-queue';

const tasks = Number(process.argv[2] ?? 50_000);
const repetitions = Number(process.argv[3] ?? 5);
const MAX_ACTIVE = 50;
const MAX_IN_LANE = 1_000;
const USERS = 1_000;

interface Task extends KeyedNode<Task> {
  id: number;
}

/** A lane's queue as the Dispatcher sees it. `busy`: the users with a run (lane.activeKeys). */
interface LaneQueue {
  readonly size: number;
  push(task: Task): void;
  /** Takes out the next task that may start, if any (its user gets a run). */
  next(): Task | undefined;
  keyBusy(key: string): void;
  keyFree(key: string): void;
}

/** The baseline: Dispatcher.pumpQueue's walk before KeyedQueue (a healthy lane, no rate limit). */
class ScanQueue implements LaneQueue {
  private readonly queue: Task[] = [];
  constructor(private readonly busy: Set<string>) {}
  get size(): number {
    return this.queue.length;
  }
  push(task: Task): void {
    this.queue.push(task);
  }
  next(): Task | undefined {
    for (let i = 0; i < this.queue.length; i++) {
      const task = this.queue[i]!;
      if (this.busy.has(task.key)) continue;
      if (i === 0) this.queue.shift();
      else this.queue.splice(i, 1);
      return task;
    }
    return undefined;
  }
  keyBusy(): void {}
  keyFree(): void {}
}

class Keyed implements LaneQueue {
  private readonly queue: KeyedQueue<Task>;
  constructor(busy: Set<string>) {
    this.queue = new KeyedQueue(busy);
  }
  get size(): number {
    return this.queue.size;
  }
  push(task: Task): void {
    this.queue.push(task);
  }
  next(): Task | undefined {
    const task = this.queue.oldestReady();
    if (task) this.queue.take(task);
    return task;
  }
  keyBusy(key: string): void {
    this.queue.keyBusy(key);
  }
  keyFree(key: string): void {
    this.queue.keyFree(key);
  }
}

/** mulberry32: the same keys for every repetition and structure. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function zipfKeys(n: number): string[] {
  const next = random(41);
  const cumulative: number[] = [];
  let total = 0;
  for (let k = 1; k <= USERS; k++) cumulative.push((total += 1 / k ** 1.1));
  return Array.from({ length: n }, (_, i) => {
    if (next() < 0.1) return `anonymous-${i}`;
    const target = next() * total;
    let lo = 0;
    let hi = USERS - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return `user-${lo}`;
  });
}

const evenKeys = (n: number): string[] => Array.from({ length: n }, (_, i) => `user-${i % USERS}`);

/** Plays the backlog through a lane; returns µs of CPU per task and a digest of the start order. */
function play(keys: string[], make: (busy: Set<string>) => LaneQueue): { usPerTask: number; digest: number } {
  const busy = new Set<string>();
  const queue = make(busy);
  const running: Task[] = []; // runs in the order they started; `head` is the next to end
  let head = 0;
  let submitted = 0;
  let digest = 0;
  const start = (task: Task) => {
    busy.add(task.key);
    queue.keyBusy(task.key);
    running.push(task);
    digest = (Math.imul(digest, 31) + task.id) | 0;
  };
  const admit = () => {
    while (submitted < keys.length && queue.size + running.length - head < MAX_IN_LANE) {
      const task: Task = {
        id: submitted,
        key: keys[submitted++]!,
        seq: 0,
        prev: undefined,
        next: undefined,
        nextOfKey: undefined,
      };
      if (running.length - head < MAX_ACTIVE && !busy.has(task.key)) start(task);
      else queue.push(task);
    }
  };
  const cpu = process.cpuUsage();
  admit();
  while (head < running.length) {
    const ended = running[head++]!;
    busy.delete(ended.key);
    queue.keyFree(ended.key);
    for (let task: Task | undefined; running.length - head < MAX_ACTIVE && (task = queue.next());)
      start(task);
    admit();
  }
  const used = process.cpuUsage(cpu);
  if (running.length !== keys.length) throw new Error(`started ${running.length} of ${keys.length}`);
  return { usPerTask: (used.user + used.system) / keys.length, digest };
}

const workloads: [string, string[]][] = [
  ['zipf', zipfKeys(tasks)],
  ['even', evenKeys(tasks)],
];
const counts = new Map<string, number>();
for (const key of workloads[0]![1]) counts.set(key, (counts.get(key) ?? 0) + 1);
const top = [...counts.values()].sort((a, b) => b - a);
console.log(
  `${tasks} tasks, ${MAX_ACTIVE} runs at once, up to ${MAX_IN_LANE} in the lane; zipf: the heaviest user ` +
    `${pct(top[0]!)}, the top 10 ${pct(top.slice(0, 10).reduce((a, b) => a + b, 0))} of the tasks`,
);
console.log(`µs of CPU per task, best of ${repetitions} interleaved repetitions`);
for (const [name, keys] of workloads) {
  play(keys, (busy) => new ScanQueue(busy)); // warm-up
  play(keys, (busy) => new Keyed(busy));
  let scan = Infinity;
  let keyed = Infinity;
  for (let r = 0; r < repetitions; r++) {
    const before = play(keys, (busy) => new ScanQueue(busy));
    const after = play(keys, (busy) => new Keyed(busy));
    if (before.digest !== after.digest) throw new Error(`${name}: the structures started different orders`);
    scan = Math.min(scan, before.usPerTask);
    keyed = Math.min(keyed, after.usPerTask);
  }
  console.log(
    `${name.padEnd(5)} scan ${scan.toFixed(3).padStart(8)}  keyed ${keyed.toFixed(3).padStart(6)}  ` +
      `scan ÷ keyed ${(scan / keyed).toFixed(1)}×`,
  );
}

function pct(n: number): string {
  return `${((100 * n) / tasks).toFixed(1)} %`;
}
