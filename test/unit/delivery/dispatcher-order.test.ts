import fc from 'fast-check';
import { WorkNotHeldError } from '../../../src/core/errors';
import { dispatcher, task, twoStepRuns } from './dispatcher-support';

interface Waiting {
  id: string;
  key: string;
  held: boolean;
}

/**
 * The model: one healthy lane without a rate limit as the Dispatcher ran it before KeyedQueue.
 * Each pump walked its queues (retries, then first attempts) from their start, skipping the tasks
 * whose user had a run (requests or hand-off), and spliced out what it started.
 */
class ScanLane {
  readonly started: string[] = [];
  readonly notHeld: string[] = [];
  active = 0;
  private readonly activeKeys = new Map<string, number>();
  private readonly retries: Waiting[] = [];
  private readonly firsts: Waiting[] = [];
  /** Runs started and not handed on: their key, and whether they still hold a slot. */
  private readonly runs = new Map<string, { key: string; holdsSlot: boolean }>();

  constructor(private readonly maxActive: number) {}

  get queued(): number {
    return this.retries.length + this.firsts.length;
  }

  submit(item: Waiting, retry: boolean): void {
    if (this.active < this.maxActive && !this.activeKeys.has(item.key)) this.start(item);
    else (retry ? this.retries : this.firsts).push(item);
  }

  requestsDone(id: string, delivered: boolean): void {
    const run = this.runs.get(id)!;
    if (!delivered || !run.holdsSlot) return;
    run.holdsSlot = false;
    this.active--;
    this.pump();
  }

  handedOn(id: string): void {
    const run = this.runs.get(id)!;
    this.runs.delete(id);
    if (run.holdsSlot) this.active--;
    const n = this.activeKeys.get(run.key)! - 1;
    if (n === 0) this.activeKeys.delete(run.key);
    else this.activeKeys.set(run.key, n);
    this.pump();
  }

  private start(item: Waiting): void {
    if (!item.held) return void this.notHeld.push(item.id);
    this.active++;
    this.activeKeys.set(item.key, (this.activeKeys.get(item.key) ?? 0) + 1);
    this.runs.set(item.id, { key: item.key, holdsSlot: true });
    this.started.push(item.id);
  }

  private pump(): void {
    for (const queue of [this.retries, this.firsts]) {
      let i = 0;
      while (i < queue.length) {
        if (this.active >= this.maxActive) break;
        const item = queue[i]!;
        if (this.activeKeys.has(item.key)) i++;
        else {
          queue.splice(i, 1);
          this.start(item);
        }
      }
    }
  }
}

/** Keys as real traffic has them: two users with most of the events, and a long tail. */
const skewedKey = fc.oneof(
  { arbitrary: fc.constantFrom('heavy0', 'heavy1'), weight: 6 },
  { arbitrary: fc.integer({ min: 0, max: 40 }).map((i) => `user${i}`), weight: 4 },
);

type Step =
  | { step: 'submit'; key: string; retry: boolean; held: boolean }
  | { step: 'requestsDone'; pick: number; delivered: boolean }
  | { step: 'handedOn'; pick: number };

const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    {
      arbitrary: fc.record({
        step: fc.constant('submit' as const),
        key: skewedKey,
        retry: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
        held: fc.integer({ min: 0, max: 19 }).map((n) => n > 0),
      }),
      weight: 6,
    },
    {
      arbitrary: fc.record({
        step: fc.constant('requestsDone' as const),
        pick: fc.nat(),
        delivered: fc.boolean(),
      }),
      weight: 3,
    },
    { arbitrary: fc.record({ step: fc.constant('handedOn' as const), pick: fc.nat() }), weight: 3 },
  ),
  { maxLength: 100, size: 'max' }, // long scripts: the queue must grow past the limit
);

describe('Dispatcher: the order tasks start in a lane', () => {
  it('starts the same tasks in the same order as the scan it replaced, under a concurrency limit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), steps, async (maxActive, script) => {
        const runs = twoStepRuns();
        const deferred: string[] = [];
        const d = dispatcher({
          run: runs.run,
          maxActivePerDestination: maxActive,
          maxQueuedPerDestination: 1_000,
          defer: async (t) => void deferred.push(t.messageId),
        });
        const model = new ScanLane(maxActive);
        const notHeld: string[] = [];
        /** Started and not handed on; those whose requests are not over yet. */
        const running: string[] = [];
        const requesting = new Set<string>();
        let n = 0;
        let seen = 0;
        for (const s of script) {
          if (s.step === 'submit') {
            const id = `m${n++}`;
            const t = task('d', s.key, id);
            void d
              .submit(s.retry ? { ...t, attempts: 1, dueAtMs: 0 } : t, { held: () => s.held })
              .catch((err: unknown) => {
                if (err instanceof WorkNotHeldError) notHeld.push(id);
              });
            model.submit({ id, key: s.key, held: s.held }, s.retry);
          } else if (s.step === 'requestsDone') {
            const open = running.filter((id) => requesting.has(id));
            if (open.length === 0) continue;
            const id = open[s.pick % open.length]!;
            requesting.delete(id);
            runs.requests.get(id)!(s.delivered);
            model.requestsDone(id, s.delivered);
          } else {
            if (running.length === 0) continue;
            const [id] = running.splice(s.pick % running.length, 1);
            requesting.delete(id!);
            runs.handoffs.get(id!)!();
            await runs.settle();
            model.handedOn(id!);
          }
          // What started since the last step is running now, its requests open.
          for (const id of runs.started.slice(seen)) {
            running.push(id);
            requesting.add(id);
          }
          seen = runs.started.length;
          expect(runs.started).toEqual(model.started);
          expect(d.load('d')).toEqual({ active: model.active, queued: model.queued });
        }
        await runs.settle();
        expect(notHeld).toEqual(model.notHeld);
        expect(deferred).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
