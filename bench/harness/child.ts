/**
 * The harness process (forked by harness/client.ts): tracking clients and webhook receivers.
 * Answers HarnessApi requests over the IPC channel; exits when the parent goes away.
 */
import { performance } from 'node:perf_hooks';
import { postBurst } from '../lib/burst-load';
import { batchBody, writeKeyHeader } from '../lib/events';
import { postClosedLoop, postPaced } from '../lib/http-load';
import type { HarnessApi, HarnessMethod, HarnessRequest, HarnessResponse } from './protocol';
import { BenchReceiver } from './receivers';

const receivers = new Map<number, BenchReceiver>();
let nextReceiverId = 0;

function receiver(id: number): BenchReceiver {
  const r = receivers.get(id);
  if (!r) throw new Error(`no receiver ${id}`);
  return r;
}

type Handlers = {
  [M in HarnessMethod]: (params: Parameters<HarnessApi[M]>[0]) => Promise<ReturnType<HarnessApi[M]>>;
};

const handlers: Handlers = {
  async startReceivers({ count, hang = false, recordLatency = false }) {
    const ids = Array.from({ length: count }, () => nextReceiverId++);
    const started = await Promise.all(ids.map((id) => BenchReceiver.start(id, { hang, recordLatency })));
    for (const r of started) receivers.set(r.id, r);
    return { ids, urls: started.map((r) => r.url) };
  },
  async resetReceivers({ ids, target, runId }) {
    for (const id of ids) receiver(id).reset(target, runId);
  },
  async receiverStats({ ids }) {
    return ids.map((id) => receiver(id).stats());
  },
  async latencies({ ids }) {
    return ids.flatMap((id) => receiver(id).latencies());
  },
  async closeReceiver({ id }) {
    receiver(id).close();
  },
  async sendBatches(p) {
    return postClosedLoop({
      url: `${p.url}/v1/batch`,
      concurrency: p.concurrency,
      requests: Math.ceil(p.events / p.batchSize),
      body: (i) => batchBody(p.runId, i * p.batchSize, Math.min(p.batchSize, p.events - i * p.batchSize)),
      headers: writeKeyHeader(p.writeKey),
      timeoutMs: p.timeoutMs,
    });
  },
  async sendPaced(p) {
    return postPaced({
      url: `${p.url}/v1/batch`,
      requestsPerSecond: p.eventsPerSecond / p.batchSize,
      durationMs: p.durationMs,
      body: (i) => batchBody(p.runId, i * p.batchSize, p.batchSize, performance.now()),
      headers: writeKeyHeader(p.writeKey),
      maxInFlight: 256,
    });
  },
  async sendBurst(p) {
    return postBurst({
      url: `${p.url}/v1/batch`,
      clients: p.clients,
      inFlight: p.inFlight,
      body: (i) => batchBody(p.runId, i * p.batchSize, p.batchSize),
      headers: writeKeyHeader(p.writeKey),
      requestTimeoutMs: p.requestTimeoutMs,
      deadlineMs: p.deadlineMs,
      ...(p.warm && { warmPath: '/livez' }),
    });
  },
};

process.on('message', (message: HarnessRequest) => {
  const handler = handlers[message.method] as (params: unknown) => Promise<unknown>;
  handler(message.params).then(
    (result) => reply({ id: message.id, result }),
    (err: unknown) =>
      reply({ id: message.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));

function reply(response: HarnessResponse): void {
  process.send?.(response);
}
