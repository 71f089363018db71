import { promises as fs } from 'node:fs';
import path from 'node:path';
import { type ComponentOptions, baseJvmArgs, retryOnBindFailure, waitUntilReady } from './component';
import { LOCAL_HOST, findFreePorts } from './ports';
import type { SupervisedProcess } from './process';

export interface RegistryNode {
  /** Confluent-compatible API base: `http://127.0.0.1:<port>/apis/ccompat/v7`. */
  url: string;
  port: number;
  process: SupervisedProcess;
}

/**
 * Starts Apicurio Registry (in-memory storage) on a free loopback port and waits until its
 * Confluent-compatible API answers `GET /subjects` with 200.
 */
export async function startRegistry(
  options: ComponentOptions & { registryJar: string },
): Promise<RegistryNode> {
  return retryOnBindFailure({
    attempts: 3,
    logger: options.logger,
    what: 'registry',
    start: () => startOnce(options),
  });
}

async function startOnce(options: ComponentOptions & { registryJar: string }): Promise<RegistryNode> {
  const { dir, java, runDir, registryJar, spawn, readyTimeoutMs } = options;
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  const [port] = await findFreePorts({ count: 1 });
  const proc = spawn({
    name: 'registry',
    command: java,
    args: [
      ...baseJvmArgs({ runDir }),
      `-Dquarkus.http.host=${LOCAL_HOST}`,
      `-Dquarkus.http.port=${port}`,
      '-jar',
      registryJar,
    ],
    cwd: dir,
    logFile: path.join(dir, 'registry.log'),
    cleanupDir: dir,
  });
  const url = `http://${LOCAL_HOST}:${port}/apis/ccompat/v7`;
  try {
    await waitUntilReady({
      process: proc,
      what: 'schema registry',
      timeoutMs: readyTimeoutMs,
      probe: () => answers(url),
    });
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return { url, port, process: proc };
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/subjects`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}
