import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stringifyJson } from '../../src/events/json';
import { useProducerHarness } from '../support/producer-harness';
import { projectRoot } from '../support/project-root';

/**
 * @hookline/producer as a service installs it: packed (`npm pack`, which builds it), installed
 * from the tarball into an empty project, then used from an ESM file and a CommonJS file on this
 * test's node, against a whole Hookline on the test cluster; and its types compiled by tsc.
 */
const ROOT = projectRoot();
const PACKAGE_DIR = path.join(ROOT, 'packages/producer');
/** Packing (a tsc build) and installing, on a busy 2-core machine, take well under this. */
const SETUP_TIMEOUT_MS = 300_000;
const RUN_TIMEOUT_MS = 60_000;

const execFileAsync = promisify(execFile);

/** Runs a command on this test's node (npm's scripts too: its directory leads PATH). */
async function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`;
  try {
    const { stdout } = await execFileAsync(file, args, {
      cwd,
      env: { ...process.env, PATH, ...env },
      timeout: RUN_TIMEOUT_MS * 2,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(
      `${file} ${args.join(' ')} failed in ${cwd}: ${String(err)}\n${stdout ?? ''}\n${stderr ?? ''}`,
    );
  }
}

/** The README's use, as a service writes it; prints what it sent as one JSON line. */
const sendsTrack = (moduleKind: 'esm' | 'cjs') => `
  const analytics = await Analytics.connect(process.env.HOOKLINE_WRITE_KEY, { flushAt: 1 });
  const messageId = analytics.track({
    userId: 'u-package',
    event: 'Package Installed',
    properties: { moduleKind: '${moduleKind}', orderId: 12345678901234567890n },
  });
  let refused;
  try {
    analytics.track({ userId: 'u-package' });
  } catch (err) {
    refused = err instanceof InvalidMessageError && err instanceof HooklineError ? err.code : String(err);
  }
  await analytics.close();
  console.log(JSON.stringify({ messageId, sourceId: analytics.sourceId, refused }));
`;

const ESM_CONSUMER = `import { Analytics, HooklineError, InvalidMessageError } from '@hookline/producer';
${sendsTrack('esm')}`;

const CJS_CONSUMER = `const { Analytics, HooklineError, InvalidMessageError } = require('@hookline/producer');
(async () => {
${sendsTrack('cjs')}
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
`;

/** Compiles only if the package's types are real: the expect-error lines fail against `any`. */
const typedConsumer = (importLine: string) => `${importLine}

export async function send(writeKey: string, options: AnalyticsOptions): Promise<string> {
  const analytics: Analytics = await Analytics.connect(writeKey, options);
  // @ts-expect-error a track call needs its event
  analytics.track({ userId: 'u' });
  // @ts-expect-error an identity is required
  analytics.identify({ traits: { plan: 'pro' } });
  const id: string = analytics.track({ userId: 'u', event: 'Typed', properties: { n: 1n, at: new Date() } });
  try {
    await analytics.close();
  } catch (err) {
    if (err instanceof MessagesNotDeliveredError) return \`\${err.count} lost\`;
    throw err;
  }
  return id;
}
`;
const TYPED_IMPORT =
  "import { Analytics, MessagesNotDeliveredError, type AnalyticsOptions } from '@hookline/producer';";

function writeTsConfig(dir: string, file: string, compilerOptions: Record<string, unknown>, files: string[]) {
  const config = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'ES2022',
      // As most projects set it (tsc --init does): checking every .d.ts of zod and @types/node takes
      // a minute here. The expect-error lines still prove the types real, and the package's build
      // refuses declarations that import types from a package it does not declare.
      skipLibCheck: true,
      // The consumer's own @types/node, as a service has it (the package does not bring it).
      typeRoots: [path.join(ROOT, 'node_modules/@types')],
      types: ['node'],
      ...compilerOptions,
    },
    files,
  };
  writeFileSync(path.join(dir, file), JSON.stringify(config, null, 2));
}

describe('@hookline/producer, packed and installed', () => {
  const h = useProducerHarness();
  let project: string;
  let tarball: string;

  beforeAll(async () => {
    project = mkdtempSync(path.join(os.tmpdir(), 'hookline-producer-package-'));
    const packed = await run('npm', ['pack', '--json', '--pack-destination', project], PACKAGE_DIR);
    const [info] = JSON.parse(packed.slice(packed.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    tarball = path.join(project, info!.filename);
    const shipped = info!.files.map((f) => f.path);
    expect(shipped).toEqual(
      expect.arrayContaining(['dist/index.mjs', 'dist/producer/index.js', 'schemas/track.avsc']),
    );
    expect(shipped.filter((f) => f.startsWith('schemas/')).sort()).toEqual(
      ['alias', 'catalog-source', 'delete', 'group', 'identify', 'page', 'screen', 'track'].map(
        (name) => `schemas/${name}.avsc`,
      ),
    );
    expect(
      shipped.some((f) => f.startsWith('src/') || f.includes('catalog/service') || f.includes('api/')),
    ).toBe(false);

    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'a-service', version: '1.0.0', private: true }, null, 2),
    );
    await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], project);
  }, SETUP_TIMEOUT_MS);

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('installs only what the library needs', () => {
    const installed = readdirSync(path.join(project, 'node_modules'));
    expect(installed).toEqual(expect.arrayContaining(['@hookline', 'kafkajs', 'avsc', 'pino']));
    for (const serviceOnly of ['lmdb', 'prom-client', 'undici', 'hookline'])
      expect(existsSync(path.join(project, 'node_modules', serviceOnly))).toBe(false);
  });

  it.each([
    ['ESM', 'send.mjs', ESM_CONSUMER, 'esm'],
    ['CommonJS', 'send.cjs', CJS_CONSUMER, 'cjs'],
  ])(
    'publishes a track call from %s to the events topic',
    async (_kind, file, code, moduleKind) => {
      const source = await h.createSource(`package-${moduleKind}`);
      writeFileSync(path.join(project, file), code);
      const stdout = await run(process.execPath, [file], project, {
        HOOKLINE_WRITE_KEY: source.writeKey,
        HOOKLINE_TOPIC_PREFIX: h.app.prefix,
        KAFKA_BROKERS: process.env.KAFKA_BROKERS,
        SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL,
        DEBUG: '',
      });
      const sent = JSON.parse(stdout.trim().split('\n').pop()!) as {
        messageId: string;
        sourceId: string;
        refused: string;
      };
      expect(sent.sourceId).toBe(source.id);
      expect(sent.refused).toBe('missing_event');
      const [consumed] = await h.waitForEvents([sent.messageId]);
      const { event } = consumed!;
      expect(consumed!.key).toBe('u-package');
      if (event.type !== 'track') throw new Error(`a ${event.type} event arrived`);
      expect(event).toMatchObject({
        type: 'track',
        sourceId: source.id,
        messageId: sent.messageId,
        userId: 'u-package',
        event: 'Package Installed',
      });
      // Exact: the big integer arrives as the integer it was.
      expect(stringifyJson(event.properties)).toBe(
        `{"moduleKind":"${moduleKind}","orderId":12345678901234567890}`,
      );
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'brings types that tsc checks, for ESM and CommonJS (node16) and for bundlers',
    async () => {
      const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
      writeFileSync(path.join(project, 'typed-esm.mts'), typedConsumer(TYPED_IMPORT));
      writeFileSync(path.join(project, 'typed-cjs.cts'), typedConsumer(TYPED_IMPORT));
      writeFileSync(path.join(project, 'typed-bundler.ts'), typedConsumer(TYPED_IMPORT));
      writeTsConfig(project, 'tsconfig.node16.json', { module: 'node16', moduleResolution: 'node16' }, [
        'typed-esm.mts',
        'typed-cjs.cts',
      ]);
      writeTsConfig(project, 'tsconfig.bundler.json', { module: 'esnext', moduleResolution: 'bundler' }, [
        'typed-bundler.ts',
      ]);
      await run(process.execPath, [tsc, '-p', 'tsconfig.node16.json'], project);
      await run(process.execPath, [tsc, '-p', 'tsconfig.bundler.json'], project);

      // And a wrong call does not compile: the check above can fail.
      writeFileSync(path.join(project, 'typed-esm.mts'), `${TYPED_IMPORT}\nAnalytics.connect(42);\n`);
      await expect(run(process.execPath, [tsc, '-p', 'tsconfig.node16.json'], project)).rejects.toThrow(
        /typed-esm\.mts.*TS2345/s,
      );
    },
    RUN_TIMEOUT_MS * 2,
  );
});
