import os from 'node:os';
import { envDurationMs, envEnum, envInt, envString, envUrl } from '../env';

/** The attempt index (GET …/attempts) and the dead-letter index. */
export const operationsEnv = {
  HOOKLINE_ATTEMPT_INDEX: envEnum(['true', 'false', 'shared'], 'expected true, false or shared')
    .default('true')
    .describe(
      'The attempt index, for `GET /api/v1/destinations/{id}/attempts`. `true`: this process keeps ' +
        'all of it, reading every record of `<prefix>.attempts`. `shared`: the processes with ' +
        "`shared` split the topic's partitions between them (consumer group `<prefix>.attempt-index`), " +
        'each reading its share and passing queries for the others to the process keeping them, at ' +
        'its `HOOKLINE_ADVERTISED_URL`. `false`: none here, for processes no attempt query reaches; ' +
        'the route answers 503 `attempt_index_off`.',
    ),
  HOOKLINE_ADVERTISED_URL: envUrl()
    .optional()
    .meta({
      description:
        "Where the other Hookline processes reach this one's admin API, for " +
        '`HOOKLINE_ATTEMPT_INDEX=shared` (e.g. `http://10.1.2.3:8080`).',
      shownDefault:
        "`http://<host>:<the admin API's port>`; the host is `HOOKLINE_ADVERTISED_HOST`, else the " +
        "admin API's interface, and a wildcard interface (`0.0.0.0`, `::`) becomes the host name",
    }),
  HOOKLINE_ADVERTISED_HOST: envString()
    .optional()
    .describe(
      'The host (name or IP address, IPv6 without brackets) that the default ' +
        '`HOOKLINE_ADVERTISED_URL` names instead of the listening interface. The Helm chart sets the ' +
        "pod's IP.",
    ),
  HOOKLINE_ATTEMPT_INDEX_WINDOW: envDurationMs()
    .default(86_400_000)
    .describe('The attempt index starts this far back in `<prefix>.attempts`.'),
  HOOKLINE_ATTEMPT_INDEX_PER_DESTINATION: envInt({ min: 1, max: 100_000 })
    .default(1_000)
    .describe('Attempts kept in memory per destination; older ones fall out.'),
  HOOKLINE_ATTEMPT_INDEX_MAX_BYTES: envInt({ min: 1_048_576, max: 2 ** 40 })
    .default(67_108_864)
    .describe(
      "Memory all destinations' kept attempts may take, per process keeping the index (about 0.35 KB " +
        'each: 64 MiB holds about 190,000). Over it, the destinations keeping the most attempts lose ' +
        'their oldest first.',
    ),
  HOOKLINE_DLQ_INDEX_DIR: envString()
    .default(os.tmpdir())
    .meta({
      description:
        "Directory of the dead-letter index's files (about 48 bytes plus the task's JSON per dead " +
        'letter). They are unlinked as soon as they are opened: nothing is left after the process ' +
        'exits, however it exits, and the index is rebuilt from `<prefix>.dlq` at every start.',
      shownDefault: 'the OS temporary directory (`os.tmpdir()`)',
    }),
  HOOKLINE_DLQ_CACHE_ENTRIES: envInt({ min: 0, max: 1_000_000 })
    .default(1_000)
    .describe(
      'Dead letters the index keeps decoded in memory (pages and gets read recently); everything else ' +
        'is on disk, so its memory does not grow with the dead-letter topic.',
    ),
};
