import type { TryPlan, TryStep } from './shell-blocks';

/**
 * The one bash script docs:try runs for a file's plan: every `sh` block in order, in one shell
 * with `set -euo pipefail`, stderr merged into stdout. Before each block the script prints a
 * marker line, so the runner can tell which block an output line (or a failure) belongs to. At a
 * `sh service` step it asks the runner, on fd 3, to (re)start that service and waits for its
 * answer; each block runs with fd 3 closed, so nothing it starts holds the runner's channel.
 * A block fails when a command fails (`set -e`) or when its last command does (as a loop whose
 * last test fails, which `set -e` lets pass).
 */

const MARKER = '@@docs-try step';

export function markerLine(step: number): string {
  return `${MARKER} ${step}@@`;
}

/** The step a marker line announces, or undefined for any other line. */
export function stepOfMarker(line: string): number | undefined {
  const m = /^@@docs-try step (\d+)@@$/.exec(line);
  return m ? Number(m[1]) : undefined;
}

/** What the script asks the runner on fd 3: `service <step>`; the runner answers `ready`. */
export function serviceRequest(line: string): number | undefined {
  const m = /^service (\d+)$/.exec(line.trim());
  return m ? Number(m[1]) : undefined;
}

export const SERVICE_READY = 'ready';

export function tryScript(plan: TryPlan): string {
  const lines = [
    'set -euo pipefail',
    'exec 2>&1',
    `__docs_try_step() { printf '\\n${MARKER} %s@@\\n' "$1"; }`,
    '__docs_try_service() {',
    "  local reply=''",
    '  printf \'service %s\\n\' "$1" >&3',
    `  read -r reply <&3 || true`,
    `  [ "$reply" = ${SERVICE_READY} ] || { echo "docs:try: the service of step $1 did not start"; exit 75; }`,
    '}',
    '__docs_try_status() { [ "$1" = 0 ] || exit "$1"; }',
  ];
  plan.steps.forEach((step: TryStep, i) => {
    if (step.kind === 'service') {
      lines.push(`__docs_try_service ${i}`);
      return;
    }
    lines.push(`__docs_try_step ${i}`, '{ :', ...step.fence.body, '} 3>&-', '__docs_try_status $?');
  });
  return `${lines.join('\n')}\n`;
}

/** The port a `sh service` block's Hookline answers `/readyz` on: its HOOKLINE_HTTP_PORT, else 8080. */
export function readyPort(service: TryStep, env: NodeJS.ProcessEnv): number {
  const set = /\bHOOKLINE_HTTP_PORT=(\d+)/.exec(service.fence.body.join('\n'));
  return Number(set?.[1] ?? env.HOOKLINE_HTTP_PORT ?? 8080);
}

/**
 * The local ports a plan needs free before it starts: each service's HTTP port, and the ports
 * the `sh` blocks listen on (`.listen(9000)`) or address on loopback (`http://127.0.0.1:9000`).
 */
export function portsOf(plan: TryPlan, env: NodeJS.ProcessEnv): number[] {
  const ports = new Set<number>();
  for (const step of plan.steps) {
    if (step.kind === 'service') {
      ports.add(readyPort(step, env));
      continue;
    }
    const body = step.fence.body.join('\n');
    for (const m of body.matchAll(/\blisten\(\s*(\d+)|\/\/(?:127\.0\.0\.1|localhost|\[::1\]):(\d+)/g))
      ports.add(Number(m[1] ?? m[2]));
  }
  return [...ports].sort((a, b) => a - b);
}
