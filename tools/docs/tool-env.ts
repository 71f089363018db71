/**
 * Environment variables read outside Hookline's configuration schema: by the `hookline` CLI, the
 * development stack, the tests, the bench and the chaos tool. The configuration reference lists them
 * after the schema's; the docs check accepts a mention of one of them in the docs, and fails when
 * `readBy` no longer mentions the name (the table would have gone stale).
 */
export interface ToolEnvVar {
  name: string;
  /** The file that reads it (repository-relative). */
  readBy: string;
  /** Who reads it, for the reference's table. */
  tool: string;
  description: string;
}

export const TOOL_ENV: readonly ToolEnvVar[] = [
  {
    name: 'HOOKLINE_URL',
    readBy: 'src/cli/main.ts',
    tool: '`hookline` CLI',
    description:
      'Base URL of the admin API the CLI talks to (default `http://127.0.0.1:8080`); with `HOOKLINE_ADMIN_TOKEN`.',
  },
  {
    name: 'HOOKLINE_WRITE_KEY',
    readBy: 'src/producer/analytics.ts',
    tool: 'producer library examples',
    description:
      "Not read by Hookline: the examples' name for a source's write key, which your service passes to `Analytics.connect`.",
  },
  {
    name: 'HOOKLINE_CACHE_DIR',
    readBy: 'tools/devstack/paths.ts',
    tool: '`npm start`, `npm run stack`, tests, CI',
    description:
      'Where the downloaded Kafka and registry, the development secrets key and the CI tools are kept (default `~/.cache/hookline`).',
  },
  {
    name: 'HOOKLINE_TESTCONTAINERS',
    readBy: 'tools/devstack/containers.ts',
    tool: '`npm start`, tests, bench',
    description: '`0`: never try a container runtime for the local Kafka and registry.',
  },
  {
    name: 'HOOKLINE_STACK_JVM_OPTS',
    readBy: 'tools/devstack/component.ts',
    tool: '`npm start`, `npm run stack`, tests',
    description: "JVM flags appended to the local Kafka's and registry's (later flags win).",
  },
  {
    name: 'HOOKLINE_STACK_OWNER_PID',
    readBy: 'tools/devstack/cli.ts',
    tool: '`npm run stack -- up`',
    description:
      "The detached stack stops when the process with this id exits (a CI job's shell, a test runner).",
  },
  {
    name: 'HOOKLINE_TEST_LOG_LEVEL',
    readBy: 'test/support/global-setup.ts',
    tool: 'tests',
    description: "Log level of the tests' cluster set-up.",
  },
  {
    name: 'HOOKLINE_REQUIRE_PROMETHEUS',
    readBy: 'test/integration/metrics-contract.test.ts',
    tool: 'tests, CI',
    description:
      '`1`: the metrics test fails, instead of skipping its part, when no `prometheus` binary is found.',
  },
  {
    name: 'HOOKLINE_PROMETHEUS_BIN',
    readBy: 'test/support/prometheus.ts',
    tool: 'tests',
    description: 'The `prometheus` binary the metrics test runs (default: `prometheus` on the PATH).',
  },
  {
    name: 'HOOKLINE_SEGMENT_CLIENT_CACHE',
    readBy: 'test/support/segment/go-clients.ts',
    tool: 'tests',
    description:
      'Where the Segment Go clients the compatibility tests build are kept (default `~/.cache/hookline/segment-clients`).',
  },
  {
    name: 'FUZZ_RUNS',
    readBy: 'test/unit/fuzz/harness.ts',
    tool: 'tests',
    description: 'Runs per property of the admin and tracking API fuzz tests (default 150).',
  },
  {
    name: 'FUZZ_SEED',
    readBy: 'test/unit/fuzz/harness.ts',
    tool: 'tests',
    description: 'Seed of the fuzz tests (a failure prints the one it used).',
  },
  {
    name: 'BENCH_BACKLOG_EVENTS',
    readBy: 'bench/scenarios/backlog.ts',
    tool: 'bench',
    description: 'Events of the `backlog` scenario before `--scale` (default 1,000,000).',
  },
  {
    name: 'BENCH_BACKLOG_NODE_FLAGS',
    readBy: 'bench/scenarios/backlog.ts',
    tool: 'bench',
    description: "Node flags the draining Hookline of the `backlog` scenario gets after `start:prod`'s own.",
  },
  {
    name: 'CHAOS_LOG_DIR',
    readBy: 'tools/chaos/fleet.ts',
    tool: '`npm run chaos`',
    description: 'Directory where each Hookline process of the chaos run appends its log.',
  },
];
