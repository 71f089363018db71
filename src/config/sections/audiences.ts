import os from 'node:os';
import { envDurationMs, envInt, envString } from '../env';

/** The audience processor. */
export const audiencesEnv = {
  HOOKLINE_AUDIENCE_SYNC_INTERVAL: envDurationMs()
    .default(600_000)
    .describe(
      'How often the audience processor re-evaluates time windows (`withinDays`, `withinHours`) and ' +
        'announces the users who left or joined because time passed.',
    ),
  HOOKLINE_AUDIENCE_EVALUATE_INTERVAL: envDurationMs()
    .default(30_000)
    .describe(
      'How long the audience processor applies events before it evaluates the users they touched and ' +
        'commits (sooner once 10,000 users of a partition wait). A user is announced at most once per ' +
        'computation per interval, with the latest value: a count going 3 → 4 → 5 announces 5, a join ' +
        'and a leave within it send nothing. Longer: fewer identifies for busy users; shorter: less ' +
        'latency. `0`: after every fetched batch.',
    ),
  HOOKLINE_AUDIENCE_BUCKET: envDurationMs()
    .default(3_600_000)
    .describe(
      'The time bucket of window counts: an event leaves a window up to this late. Smaller buckets ' +
        'cost memory per user (one count per bucket within the longest window).',
    ),
  HOOKLINE_AUDIENCE_STATE_DIR: envString()
    .default(os.tmpdir())
    .meta({
      description:
        "Directory of the audience processor's stores of user state (one LMDB file per owned " +
        'partition, about the size of its share of `<prefix>.audience-state`). Each file is unlinked ' +
        'as soon as it is opened: nothing is left after the process exits, however it exits, and a ' +
        "partition's store is rebuilt from `<prefix>.audience-state` whenever it is assigned.",
      shownDefault: 'the OS temporary directory (`os.tmpdir()`)',
    }),
  HOOKLINE_AUDIENCE_CACHE_USERS: envInt({ min: 0, max: 100_000_000 })
    .default(50_000)
    .describe(
      'User states the audience processor holds decoded in memory, shared evenly by its partitions ' +
        '(about 1 KB to 5.5 KB each, plus up to 1,000 changed states per partition waiting to be ' +
        'written); the others are read from disk when their users are active.',
    ),
};
