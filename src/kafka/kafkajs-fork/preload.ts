import { preloadGroupMessages } from './group-messages';

/**
 * Imported first by each Hookline process entry (src/process/main.ts, bench/run.ts), before anything loads
 * kafkajs: puts Hookline's groupMessagesPerPartition where kafkajs will find it (group-messages.ts).
 * Its result is not kept here: `applyKafkajsFixes` runs the preload again, which then tells whether
 * this one came in time, and fails start-up when it did not. The producer library never imports
 * this (a dependency rule says so): it leaves the kafkajs of the application using it alone.
 *
 * Under jest this has no effect (jest loads modules through a registry of its own, not Node's
 * module cache), so tests run kafkajs's own grouping; the unit test of group-messages.ts checks the
 * preload in a real node process.
 */
preloadGroupMessages();
