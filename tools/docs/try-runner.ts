import { createInterface } from 'node:readline';
import type { Duplex } from 'node:stream';
import type { StoppedTree } from './process-tree';
import type { TryPlan, TryStep } from './shell-blocks';
import { readyPort, SERVICE_READY, serviceRequest, stepOfMarker, tryScript } from './try-script';
import { type Service, spawnGroup, startService, waitReady } from './try-service';

export interface RunPlanOptions {
  /** The Markdown file, for messages. */
  file: string;
  plan: TryPlan;
  /** The repository root: where the blocks run. */
  root: string;
  env: NodeJS.ProcessEnv;
  /** Bound on each service's wait for `/readyz`. */
  readyTimeoutMs: number;
  /** Bound on the time the `sh` blocks take together (service starts not counted). */
  blocksTimeoutMs: number;
  log: (text: string) => void;
}

const seconds = (ms: number) => `${(ms / 1_000).toFixed(1)} s`;
const indent = (text: string) => text.replace(/^/gm, '    ');

/** A time budget that can be paused (while a service starts) and calls `onOut` when spent. */
class Budget {
  private timer: NodeJS.Timeout | undefined;
  private since = 0;
  constructor(
    private remainingMs: number,
    private readonly onOut: () => void,
  ) {}
  resume(): void {
    this.since = Date.now();
    this.timer = setTimeout(this.onOut, Math.max(0, this.remainingMs));
  }
  pause(): void {
    clearTimeout(this.timer);
    this.remainingMs -= Date.now() - this.since;
  }
}

/**
 * Runs a file's plan (tryScript): `sh` blocks in one bash, `sh service` blocks in the background
 * when the script reaches them. At the end, stops the script's process group (what the blocks
 * left in the background) and the service's, and checks that nothing of either is left running.
 * Resolves true when every block exited 0 and nothing was left.
 */
export async function runPlan(options: RunPlanOptions): Promise<boolean> {
  const { file, plan, root, env, log } = options;
  const where = (step: TryStep) =>
    `${file}:${step.fence.line} (sh${step.kind === 'service' ? ' service' : ''})`;
  for (const fence of plan.replaced)
    log(`- ${file}:${fence.line} (sh service): not run, a later sh service block replaces it first\n`);

  const script = spawnGroup({ script: tryScript(plan), cwd: root, env, fds: 3 });
  let failure: string | undefined;
  const fail = (message: string) => {
    failure ??= message;
    void script.stop();
  };
  const budget = new Budget(options.blocksTimeoutMs, () =>
    fail(
      `${current === undefined ? file : where(plan.steps[current]!)}: still running after the blocks' ${seconds(options.blocksTimeoutMs)}`,
    ),
  );

  // The blocks' output, cut at the script's step markers.
  let current: number | undefined;
  let startedMs = 0;
  let lines: string[] = [];
  const finishBlock = (status: string) => {
    if (current === undefined) return;
    const output = lines.join('\n').trim();
    log(
      `${status} ${where(plan.steps[current]!)} ${seconds(Date.now() - startedMs)}\n${output ? `${indent(output)}\n` : ''}`,
    );
    current = undefined;
    lines = [];
  };
  const reader = createInterface({ input: script.child.stdout! });
  const outputClosed = new Promise<void>((resolve) => reader.once('close', resolve));
  reader.on('line', (line) => {
    const step = stepOfMarker(line);
    if (step === undefined) return void lines.push(line);
    finishBlock('ok');
    current = step;
    startedMs = Date.now();
  });

  // Service requests on fd 3, one at a time (the script waits for each answer).
  let service: Service | undefined;
  let starting: Promise<void> = Promise.resolve();
  const stopService = async (): Promise<void> => {
    if (!service) return;
    const stopping = service;
    service = undefined;
    const since = Date.now();
    const stopped = await stopping.stop();
    log(`  stopped the service in ${seconds(Date.now() - since)}: ${describeStop(stopped)}\n`);
    if (stopped.left.length > 0) fail(`${describeStop(stopped)}`);
  };
  const control = script.child.stdio[3] as Duplex;
  createInterface({ input: control }).on('line', (line) => {
    const index = serviceRequest(line);
    const step = index === undefined ? undefined : plan.steps[index];
    if (!step) return fail(`${file}: unexpected request from the script: ${line}`);
    budget.pause();
    finishBlock('ok'); // The script asks only once the block before has passed.
    starting = (async () => {
      await stopService();
      const port = readyPort(step, env);
      const body = step.fence.body.filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
      log(`▶ ${where(step)}: ${body.join(' ; ')}\n`);
      const since = Date.now();
      service = startService({ body: step.fence.body, cwd: root, env });
      const notReady = await waitReady({ service, port, timeoutMs: options.readyTimeoutMs });
      if (notReady) return fail(`${where(step)}: ${notReady}`);
      log(`  ready in ${seconds(Date.now() - since)}: http://127.0.0.1:${port}/readyz answers 200\n`);
      budget.resume();
      control.write(`${SERVICE_READY}\n`);
    })().catch((err: unknown) => fail(`${where(step)}: ${err instanceof Error ? err.message : String(err)}`));
  });

  budget.resume();
  const exit = await script.exited;
  budget.pause();
  // What the blocks left in the background (the receiver) holds their output open: stop it, then
  // read the output to its end.
  const stoppedScript = await script.stop();
  await Promise.race([outputClosed, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  await starting;
  if (exit.code === 0) finishBlock('ok');
  else {
    const step = current === undefined ? undefined : plan.steps[current];
    const how = exit.signal ? `was stopped (${exit.signal})` : `exited with ${exit.code}`;
    failure ??= step ? `${where(step)} ${how}` : `the script ${how}`;
    finishBlock('✗');
  }
  if (stoppedScript.left.length > 0) fail(`the blocks' processes: ${describeStop(stoppedScript)}`);
  if (stoppedScript.seen > 0) log(`  stopped the blocks' processes: ${describeStop(stoppedScript)}\n`);
  if (failure && service)
    log(`  the service's last output:\n${indent(service.output.lines(30) || '(none)')}\n`);
  await stopService();
  if (failure) log(`docs:try: ${failure}\n`);
  return failure === undefined;
}

function describeStop(stopped: StoppedTree): string {
  if (stopped.left.length === 0)
    return `${stopped.seen} process(es), all gone${stopped.killed ? ' (some needed SIGKILL)' : ''}`;
  return `left running after SIGKILL: ${stopped.left.map((p) => `${p.pid} (${p.command.slice(0, 80)})`).join(', ')}`;
}
