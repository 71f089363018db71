import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, uniquePrefix, type TestApp } from './app';
import { createDestination, createSource } from './hookline';
import { childEnv, exited, spawnHookline } from './process';
import { startReceiver, type Receiver } from './receiver';

/**
 * What the audience crash tests share: an in-process Hookline without the audience processor
 * (ingest, router, worker) delivering to a receiver, a source with one rule audience (`Pro
 * Users`: plan = pro), and audience processors run as real child processes (killed at the end).
 */
export interface ProcessorRig {
  t: TestApp;
  r: Receiver;
  source: { id: string; writeKey: string };
  audienceId: string;
  /** HOOKLINE_AUDIENCE_STATE_DIR of the processors. */
  stateDir: string;
  /** Starts a processor process (role `audiences` only) with these variables besides. */
  spawn(env?: Record<string, string>): ChildProcess & { output: string[] };
  /** Kills every processor still running, stops the app and the receiver, removes the state dir. */
  stop(): Promise<void>;
}

export async function startProcessorRig(): Promise<ProcessorRig> {
  const prefix = uniquePrefix();
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hookline-audience-crash-'));
  const children: ChildProcess[] = [];
  const t = await startTestApp({ HOOKLINE_TOPIC_PREFIX: prefix, HOOKLINE_ROLES: 'ingest,router,worker' });
  const r = await startReceiver();
  const source = await createSource(t);
  await createDestination(t, { sourceId: source.id, webhooks: [{ url: r.url }] });
  const created = await t.admin<{ id: string }>('POST', '/api/v1/audiences', {
    sourceId: source.id,
    name: 'Pro Users',
    rule: { trait: { name: 'plan', equals: 'pro' } },
  });
  if (created.status !== 201) throw new Error(`creating the audience failed: ${created.status}`);
  const base = childEnv(
    { prefix, roles: 'audiences', adminToken: 'audiences-token' },
    { HOOKLINE_AUDIENCE_STATE_DIR: stateDir },
  );
  return {
    t,
    r,
    source,
    audienceId: created.body.id,
    stateDir,
    spawn(env = {}) {
      const child = spawnHookline({ ...base, ...env });
      children.push(child);
      return child;
    },
    async stop() {
      for (const c of children) c.kill('SIGKILL');
      await Promise.all(children.map(exited));
      await r.close();
      await t.stop();
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
