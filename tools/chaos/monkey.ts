import type { KafkaNode } from '../devstack';
import type { HooklineFleet } from './fleet';

export interface MonkeyOptions {
  fleet: HooklineFleet;
  kafka: KafkaNode;
  /** Pause between one worker's restart (ready again) and the next kill; workers take turns. */
  workerKillIntervalMs: number;
  /** stop() waits until at least this many worker kills were done (a broker outage delays restarts). */
  minWorkerKills: number;
  /** When to kill -9 the broker, in ms from start. */
  brokerKillsAtMs: number[];
  /** How long the broker stays down before it is started again on its data. */
  brokerDownMs: number;
  log: (line: string) => void;
}

export interface MonkeyCounts {
  workerKills: number;
  brokerKills: number;
  /** What was done when (epoch ms), in order. */
  timeline: { atMs: number; what: string }[];
}

/**
 * The faults of the chaos run, until stop(): SIGKILL a worker process and start it again, every
 * `workerKillIntervalMs`, workers in turn; and kill -9 the broker at the given times, starting it
 * again on the same data after `brokerDownMs`. stop() lets a kill in progress finish (the worker
 * is up, the broker restarted), does the worker kills still short of `minWorkerKills`, and
 * resolves with what was done. The intervals are the chaos;
 * nothing here asserts anything about timing.
 */
export function startMonkey(options: MonkeyOptions): { stop(): Promise<MonkeyCounts> } {
  const { fleet, kafka, log } = options;
  const startedMs = Date.now();
  const counts: MonkeyCounts = { workerKills: 0, brokerKills: 0, timeline: [] };
  let stopped = false;
  const wakers = new Set<() => void>();
  /** Waits `ms` or until stop(); true when it was not stopped meanwhile. */
  const pause = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve(!stopped);
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      wakers.add(wake);
    });
  const note = (what: string) => {
    counts.timeline.push({ atMs: Date.now(), what });
    log(`${((Date.now() - startedMs) / 1_000).toFixed(1)} s: ${what}`);
  };

  const keepKilling = () => !stopped || counts.workerKills < options.minWorkerKills;
  const workers = (async () => {
    for (let i = 0; keepKilling(); i++) {
      await pause(options.workerKillIntervalMs);
      if (!keepKilling()) return;
      const index = i % fleet.workerCount;
      note(`SIGKILL worker-${index + 1}`);
      await fleet.killWorker(index);
      counts.workerKills++;
      note(`worker-${index + 1} restarted and ready`);
    }
  })();

  const broker = (async () => {
    for (const killAtMs of options.brokerKillsAtMs) {
      if (!(await pause(startedMs + killAtMs - Date.now()))) return;
      note('kill -9 the Kafka broker');
      await kafka.kill();
      counts.brokerKills++;
      await new Promise((r) => setTimeout(r, options.brokerDownMs)); // down, even if stopping
      await kafka.restart();
      note('Kafka broker restarted on its data');
    }
  })();

  return {
    stop: async () => {
      stopped = true;
      for (const wake of [...wakers]) wake();
      await Promise.all([workers, broker]);
      return counts;
    },
  };
}
