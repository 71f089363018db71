import { createRequire } from 'node:module';
import { applyKafkajsFixes, KafkajsPatchError } from '../../../../src/kafka/kafkajs-fork';
import { isPermanentStartError } from '../../../../src/kafka/outage';

const installed = createRequire(__filename);

/** The installed kafkajs, but saying it is `version`, or with `missing` modules empty. */
const kafkajsWith = ({ version = '2.2.4', missing = '' } = {}) =>
  Object.assign(
    (id: string) => {
      if (id === 'kafkajs/package.json') return { version };
      if (missing && id.endsWith(missing)) return { prototype: {} };
      return installed(id) as unknown;
    },
    { resolve: installed.resolve, cache: installed.cache },
  ) as unknown as NodeRequire;

describe('applyKafkajsFixes', () => {
  it('applies every patch of the fork to the installed kafkajs, and says so', () => {
    const results = applyKafkajsFixes(installed);
    expect(results.map((r) => r.patch)).toEqual([
      'group-messages',
      'request-queue-timer',
      'produce-encoding',
      'fetch-decoding',
      'runner-stop',
      'compression-codecs',
      'metadata-refresh',
    ]);
    // Under jest the preload is skipped: its module registry ignores Node's cache (group-messages.ts).
    expect(results[0]).toMatchObject({ status: 'skipped' });
    for (const r of results.slice(1)) expect(['applied', 'already applied']).toContain(r.status);
  });

  it('fails start-up, naming the patch, on another kafkajs release', () => {
    const apply = () => applyKafkajsFixes(kafkajsWith({ version: '2.2.5' }));
    expect(apply).toThrow(KafkajsPatchError);
    expect(apply).toThrow(
      "kafkajs patch 'group-messages' was not applied: kafkajs 2.2.5 is installed (see src/kafka/kafkajs-fork/README.md; kafkajs must be exactly 2.2.4)",
    );
  });

  it('fails start-up, naming the patch, when what it replaces has another shape', () => {
    const apply = () => applyKafkajsFixes(kafkajsWith({ missing: 'network/requestQueue' }));
    expect(apply).toThrow(
      "kafkajs patch 'request-queue-timer' was not applied: kafkajs RequestQueue.prototype.scheduleCheckPendingRequests is not a function",
    );
  });

  it('is a failure start-up does not wait out', () => {
    expect(isPermanentStartError(new KafkajsPatchError('runner-stop', 'kafkajs 2.3.0 is installed'))).toBe(
      true,
    );
  });
});
