import { spawn, spawnSync } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { splitFences } from '../../../tools/docs/markdown';
import { tryPlan } from '../../../tools/docs/shell-blocks';
import { markerLine, portsOf, readyPort, stepOfMarker, tryScript } from '../../../tools/docs/try-script';

const planOf = (markdown: string) => tryPlan(splitFences(markdown).fences);
const block = (info: string, ...body: string[]) => ['```' + info, ...body, '```', ''].join('\n');

/** Runs the script of a plan without services in bash: the steps it announced, its output, its status. */
function run(markdown: string) {
  const result = spawnSync('bash', ['-c', tryScript(planOf(markdown))], { encoding: 'utf8' });
  const lines = result.stdout.split('\n').filter((l) => l !== '');
  return {
    steps: lines.map(stepOfMarker).filter((s) => s !== undefined),
    output: lines.filter((l) => stepOfMarker(l) === undefined),
    status: result.status,
  };
}

describe('tryScript: the sh blocks of a file in one bash', () => {
  it.each([
    [
      'blocks share variables, in order; stderr is kept',
      [block('sh', 'A=1'), block('sh example', 'echo never'), block('sh', 'echo "a=$A"', 'echo err >&2')],
      { steps: [0, 1], output: ['a=1', 'err'], status: 0 },
    ],
    [
      'a failing command stops the run (set -e)',
      [block('sh', 'false', 'echo after'), block('sh', 'echo next')],
      { steps: [0], output: [], status: 1 },
    ],
    [
      'a failing stage of a pipeline fails it (pipefail)',
      [block('sh', 'false | cat', 'echo after')],
      { steps: [0], output: [], status: 1 },
    ],
    [
      'an unset variable fails (set -u)',
      [block('sh', 'echo "$NOT_SET_ANYWHERE"')],
      { steps: [0], output: [expect.stringContaining('NOT_SET_ANYWHERE: unbound variable')], status: 1 },
    ],
    [
      'a loop whose last test fails fails its block, which set -e alone lets pass',
      [block('sh', 'for i in 1 2; do', '  echo no | grep yes && break', 'done'), block('sh', 'echo next')],
      { steps: [0], output: [], status: 1 },
    ],
    [
      'a loop that succeeds goes on',
      [block('sh', 'for i in 1 2; do', '  echo yes | grep yes && break', 'done'), block('sh', 'echo next')],
      { steps: [0, 1], output: ['yes', 'next'], status: 0 },
    ],
    [
      'a block of comments only is fine',
      [block('sh', '# nothing'), block('sh', 'echo ok')],
      { steps: [0, 1], output: ['ok'], status: 0 },
    ],
  ])('%s', (_name, blocks, expected) => {
    expect(run(blocks.join('\n'))).toEqual(expected);
  });

  /** Runs a plan's script with a runner on fd 3 that answers each service request with `answer`. */
  function runWithRunner(markdown: string, answer: string) {
    const child = spawn('bash', ['-c', tryScript(planOf(markdown))], {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    const control = child.stdio[3] as Duplex;
    const requests: string[] = [];
    control.on('data', (chunk: Buffer) => {
      requests.push(chunk.toString().trim());
      control.write(`${answer}\n`);
    });
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    return new Promise<{ requests: string[]; stdout: string; status: number | null }>((resolve) =>
      child.once('close', (status) => resolve({ requests, stdout, status })),
    );
  }

  it('asks the runner for a service on fd 3 before the blocks that need it; blocks run with fd 3 closed', async () => {
    const markdown = [
      block('sh', 'echo first'),
      block('sh service', 'npm start'),
      block('sh', "bash -c 'ls /proc/$$/fd; true'"),
    ];
    const result = await runWithRunner(markdown.join('\n'), 'ready');
    expect(result).toMatchObject({ requests: ['service 1'], status: 0 });
    expect(result.stdout.indexOf('first')).toBeLessThan(result.stdout.indexOf(markerLine(2)));
    const fds = result.stdout.split('\n').filter((l) => /^\d+$/.test(l));
    expect(fds).toEqual(expect.arrayContaining(['0', '1', '2']));
    expect(fds).not.toContain('3');
  });

  it('stops when the runner does not answer ready', async () => {
    const markdown = [block('sh service', 'npm start'), block('sh', 'echo never')].join('\n');
    const result = await runWithRunner(markdown, 'failed');
    expect(result.status).toBe(75);
    expect(result.stdout).not.toContain('never');
  });
});

describe('the ports a plan needs free', () => {
  const readme = [
    block('sh service', 'npm ci && npm start'),
    block('sh service', 'HOOKLINE_ADMIN_TOKEN=t npm start'),
    block(
      'sh',
      'export HOOKLINE_URL=http://127.0.0.1:8080',
      `node -e 'require("http").createServer(() => {}).listen(9000)' &`,
      `curl -d '{"url":"http://localhost:9001/hook"}' https://example.com:8443`,
    ),
  ].join('\n');

  it.each([
    ['the default port, and what the blocks listen on or call on loopback', readme, {}, [8080, 9000, 9001]],
    [
      'HOOKLINE_HTTP_PORT of the environment',
      readme,
      { HOOKLINE_HTTP_PORT: '8181' },
      [8080, 8181, 9000, 9001],
    ],
    [
      "HOOKLINE_HTTP_PORT of the service's block first",
      block('sh service', 'HOOKLINE_HTTP_PORT=8282 npm start'),
      { HOOKLINE_HTTP_PORT: '8181' },
      [8282],
    ],
    ['none without a service or a listener', block('sh', 'npm run docs:check'), {}, []],
  ])('%s', (_name, markdown, env, ports) => {
    expect(portsOf(planOf(markdown), env)).toEqual(ports);
  });

  it('readyz is asked on the service port', () => {
    const [service] = planOf(block('sh service', 'HOOKLINE_HTTP_PORT=8282 npm start')).steps;
    expect(readyPort(service!, {})).toBe(8282);
  });
});
