import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LOOPBACK_NETWORKS, TEST_SECRETS_KEY } from './app';
import { projectRoot } from './project-root';

const ROOT = projectRoot();

/**
 * Runs `src/process/main.ts` (what `npm start` runs) as a real child process, in one process (no tsx
 * wrapper), so that a signal sent to it reaches Hookline itself; with `built`, the compiled
 * `dist/src/process/main.js` of `npm run build` instead, with the node flags of `npm run start:prod`, as the
 * image runs it. An `undefined` value unsets
 * a variable of this process's environment. One process (HOOKLINE_WORKERS=1) unless `env` says
 * otherwise, so a signal or SIGKILL hits Hookline itself, not a primary of children.
 */
export function spawnHookline(
  env: Record<string, string | undefined>,
  options: { built?: boolean; nodeFlags?: string[] } = {},
): ChildProcess & { output: string[] } {
  const args = options.built
    ? startProdArgs(options.nodeFlags ?? [])
    : [...(options.nodeFlags ?? []), '--require', 'tsx/cjs', 'src/process/main.ts'];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, HOOKLINE_LOG_LEVEL: 'warn', HOOKLINE_WORKERS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { output: string[] };
  child.output = [];
  child.stdout!.on('data', (d: Buffer) => child.output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => child.output.push(d.toString()));
  return child;
}

/**
 * The environment of a Hookline child process on the test cluster: the test's topic prefix, 3
 * partitions, its roles, HTTP on 127.0.0.1 port 0, the test secrets key, a 6 s session timeout (a
 * SIGKILLed child's partitions move soon) and loopback receivers allowed; `extra` adds or overrides.
 */
export function childEnv(
  options: { prefix: string; roles: string; adminToken: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    KAFKA_BROKERS: process.env.KAFKA_BROKERS!,
    SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL!,
    HOOKLINE_TOPIC_PREFIX: options.prefix,
    HOOKLINE_TOPIC_PARTITIONS: '3',
    HOOKLINE_ROLES: options.roles,
    HOOKLINE_HTTP_PORT: '0',
    HOOKLINE_HTTP_HOST: '127.0.0.1',
    HOOKLINE_ADMIN_TOKEN: options.adminToken,
    HOOKLINE_SECRETS_KEY: TEST_SECRETS_KEY,
    HOOKLINE_KAFKA_SESSION_TIMEOUT: '6s',
    HOOKLINE_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
    ...extra,
  };
}

/**
 * The arguments `npm run start:prod` gives node (its V8 flags and dist/src/process/main.js), so `built` runs
 * exactly that; `nodeFlags` (an experiment) come after start:prod's own, so they win over them.
 */
function startProdArgs(nodeFlags: string[]): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [command, ...args] = pkg.scripts['start:prod']!.split(/\s+/);
  if (command !== 'node')
    throw new Error(`start:prod does not start with node: ${pkg.scripts['start:prod']}`);
  const script = args.findIndex((arg) => arg.endsWith('.js'));
  return [...args.slice(0, script), ...nodeFlags, path.join(ROOT, args[script]!), ...args.slice(script + 1)];
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
