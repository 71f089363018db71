import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The producer library runs inside someone else's application: it must leave that application's
 * kafkajs exactly as kafkajs ships it (no patch of src/kafka/kafkajs-fork/, no preload). Checked in
 * a real node process (jest has its own module registry): the library is loaded, a Kafka transport
 * is created (its client made; the broker is unreachable, so connecting fails), and then every
 * kafkajs module the fork changes must still hold kafkajs's own code.
 */
test('the producer library leaves the kafkajs of the application that uses it untouched', () => {
  const root = path.resolve(__dirname, '../../..');
  const script = `
    const fs = require('node:fs');
    const { Analytics } = require('./src/producer');
    const own = (id, fn) => fs.readFileSync(require.resolve(id), 'utf8').includes(fn.toString());
    (async () => {
      const failed = await Analytics.connect('wk', {
        transport: 'kafka', brokers: ['127.0.0.1:1'], registry: 'http://127.0.0.1:1',
        connectTimeoutMs: 1000, logger: { debug() {}, info() {}, warn() {}, error() {}, child() { return this; } },
      }).then(() => false, () => true);
      const grouping = 'kafkajs/src/producer/groupMessagesPerPartition';
      const Runner = require('kafkajs/src/consumer/runner');
      const RequestQueue = require('kafkajs/src/network/requestQueue');
      const produce = require('kafkajs/src/protocol/requests/produce');
      const fetch = require('kafkajs/src/protocol/requests/fetch');
      const { CompressionCodecs } = require('kafkajs');
      console.log(JSON.stringify({
        failed,
        grouping: own(grouping, require.cache[require.resolve(grouping)].exports),
        runnerStart: own('kafkajs/src/consumer/runner', Runner.prototype.start),
        runnerStop: own('kafkajs/src/consumer/runner', Runner.prototype.stop),
        requestQueue: own('kafkajs/src/network/requestQueue', RequestQueue.prototype.scheduleCheckPendingRequests),
        produce: own('kafkajs/src/protocol/requests/produce', produce.protocol),
        fetch: own('kafkajs/src/protocol/requests/fetch', fetch.protocol),
        codecs: [2, 3, 4].every((t) => own('kafkajs/src/protocol/message/compression', CompressionCodecs[t])),
        forkPreloaded: Object.keys(require.cache).some((f) => f.includes('kafkajs-fork/preload')),
      }));
    })();
  `;
  const out = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
    cwd: root,
    timeout: 60_000,
    encoding: 'utf8',
  });
  expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({
    failed: true,
    grouping: true,
    runnerStart: true,
    runnerStop: true,
    requestQueue: true,
    produce: true,
    fetch: true,
    codecs: true, // kafkajs's own: Snappy, LZ4 and ZSTD not implemented
    forkPreloaded: false,
  });
});
