import { randomBytes } from 'node:crypto';
import { eventually } from '../../test/support/eventually';
import type { Logger } from '../../src/observability/logger';
import { launchLocalStack } from '../devstack';
import { followDeadLetters } from './dead-letters';
import { duplicateCauses, type DuplicateCauses } from './duplicates';
import { HooklineFleet } from './fleet';
import { tally, type Ledger } from './ledger';
import { sendEvents } from './load';
import { startMonkey, type MonkeyCounts } from './monkey';
import { startChaosReceivers, type ChaosDestination, type ReceiverPlan } from './receivers';
import { countTaskCopies } from './task-copies';

export interface ChaosOptions {
  events: number;
  ratePerSecond: number;
  /** Worker-only processes (besides the ingest+router one). */
  workers: number;
  /**
   * The workers route too, making first attempts straight from hookline.events (the path of a
   * process running every role, the default), and the front process only ingests.
   */
  direct?: boolean;
  workerKillIntervalMs: number;
  /** Worker kills done even when the load is over sooner. */
  minWorkerKills: number;
  /** Broker kills, spread evenly over the time the events are being sent. */
  brokerKills: number;
  brokerDownMs: number;
  receivers: ReceiverPlan;
  /** Hookline settings short enough that a hung destination's tasks reach the DLQ within the run. */
  hookline: { deliveryTimeout: string; retrySchedule: string; retryCutoff: string };
  /** After the last event was sent: how long until every event must be accounted for. */
  settleTimeoutMs: number;
  /** The stack's own logger (warnings only, typically). */
  logger: Logger;
  /** Progress lines. */
  log: (line: string) => void;
}

export interface DestinationRequests {
  name: string;
  requests: number;
}

export interface ChaosResult {
  ledger: Ledger;
  accepted: number;
  /** Events the client gave up on (not acknowledged, so Hookline owes nothing for them). */
  rejected: { messageId: string; error: string }[];
  faults: MonkeyCounts;
  unexpectedExits: HooklineFleet['unexpectedExits'];
  /** Records on the DLQ that are neither a task nor a redrive marker. */
  undecodableDeadLetters: number;
  requests: DestinationRequests[];
  /** False when the settle deadline passed with events still unaccounted for. */
  settled: boolean;
  timingsMs: { setUp: number; load: number; settle: number; total: number };
  /** The last lines each Hookline process printed (for a failure message). */
  outputTail: string;
  /** Which fault each duplicate followed, and how old the redelivered work was then. */
  duplicateCauses: DuplicateCauses;
  /**
   * When the load and the faults started (epoch ms, after set-up): the zero of the times the fault
   * log prints, so that the times of `duplicateCauses` read on the same clock.
   */
  startedMs: number;
  /** Per destination: tasks on the deliveries topic beyond the first copy (routed more than once). */
  taskCopies: { name: string; extra: number }[];
}

const ADMIN_TOKEN = `chaos-${randomBytes(12).toString('hex')}`;
/** Hookline's topics on the stack's own cluster: the default prefix, so the DLQ is `hookline.dlq`. */
const TOPIC_PREFIX = 'hookline';

/**
 * The chaos run (issue 14, section 5): its own Kafka + registry (which it kills), Hookline as an
 * ingest+router process and worker-only processes, scripted receivers, events through the real
 * Segment client while workers are SIGKILLed and the broker is kill -9'd; then waits until every
 * accepted event is delivered to, or dead-lettered with a reason for, every destination, and
 * tallies what arrived, what was dead-lettered, what is lost, and the duplicates.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const { log } = options;
  const startedMs = Date.now();
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    log('starting a Kafka broker and schema registry of its own');
    const stack = await launchLocalStack({ logger: options.logger });
    cleanups.push(() => stack.stop());
    const receivers = await startChaosReceivers(options.receivers);
    cleanups.push(() => receivers.close());
    log(
      options.direct
        ? `starting Hookline: ingest and ${options.workers} router+worker processes (first attempts from the events)`
        : `starting Hookline: ingest+router and ${options.workers} worker processes`,
    );
    const fleet = await HooklineFleet.start({
      kafkaBrokers: stack.kafkaBrokers,
      schemaRegistryUrl: stack.schemaRegistryUrl,
      adminToken: ADMIN_TOKEN,
      workers: options.workers,
      ...(options.direct && { direct: true }),
      env: {
        HOOKLINE_TOPIC_PREFIX: TOPIC_PREFIX,
        HOOKLINE_TOPIC_PARTITIONS: '3',
        HOOKLINE_KAFKA_SESSION_TIMEOUT: '6s',
        HOOKLINE_DELIVERY_TIMEOUT: options.hookline.deliveryTimeout,
        HOOKLINE_RETRY_SCHEDULE: options.hookline.retrySchedule,
        HOOKLINE_RETRY_CUTOFF: options.hookline.retryCutoff,
      },
    });
    cleanups.push(() => fleet.stop());

    const admin = adminClient(fleet.baseUrl);
    const source = await admin<{ id: string; writeKey: string }>('/api/v1/sources', {
      name: 'chaos',
      enabled: true,
    });
    const destinations: (ChaosDestination & { destinationId: string })[] = [];
    for (const d of receivers.destinations) {
      const { id } = await admin<{ id: string }>('/api/v1/destinations', {
        sourceId: source.id,
        name: d.name,
        enabled: true,
        settings: { webhooks: d.urls.map((url) => ({ url })) },
      });
      destinations.push({ ...d, destinationId: id });
    }
    // A worker that did not know a destination yet would dead-letter its tasks as deleted.
    for (const d of destinations) {
      await eventually(
        () => fleet.everyProcessAnswers(`/api/v1/destinations/${d.destinationId}`, ADMIN_TOKEN),
        {
          timeoutMs: 30_000,
          what: `every process to know destination ${d.name}`,
        },
      );
    }
    const setUpMs = Date.now() - startedMs;

    const loadWindowMs = (options.events / options.ratePerSecond) * 1_000;
    log(
      `sending ${options.events} events at ${options.ratePerSecond}/s while killing workers and the broker`,
    );
    const monkey = startMonkey({
      fleet,
      kafka: stack.kafka,
      workerKillIntervalMs: options.workerKillIntervalMs,
      minWorkerKills: options.minWorkerKills,
      brokerKillsAtMs: Array.from(
        { length: options.brokerKills },
        (_, i) => ((i + 1) * loadWindowMs) / (options.brokerKills + 1),
      ),
      brokerDownMs: options.brokerDownMs,
      log,
    });
    let load: Awaited<ReturnType<typeof sendEvents>>;
    let faults: MonkeyCounts;
    try {
      load = await sendEvents({
        host: fleet.baseUrl,
        writeKey: source.writeKey,
        runId: `chaos-${randomBytes(4).toString('hex')}`,
        events: options.events,
        ratePerSecond: options.ratePerSecond,
        flushTimeoutMs: 120_000,
      });
    } finally {
      faults = await monkey.stop();
    }
    const loadMs = Date.now() - startedMs - setUpMs;
    log(
      `${load.accepted.length} events accepted, ${load.failed.length} not; waiting until each is accounted for`,
    );

    const deadLetters = await followDeadLetters({
      kafkaBrokers: stack.kafkaBrokers,
      schemaRegistryUrl: stack.schemaRegistryUrl,
      topic: `${TOPIC_PREFIX}.dlq`,
    });
    cleanups.push(() => deadLetters.stop());
    const ledgerNow = () =>
      tally({
        accepted: load.accepted,
        destinations: destinations.map((d) => ({ ...d, deliveredMessageIds: d.deliveredMessageIds() })),
        deadLetters: deadLetters.entries(),
      });
    let lastProgressMs = Date.now();
    const settled = await eventually(
      () => {
        const ledger = ledgerNow();
        if (Date.now() - lastProgressMs > 10_000) {
          lastProgressMs = Date.now();
          log(`  ${ledger.lost} (event, destination) pairs not yet delivered or dead-lettered`);
        }
        return ledger.lost === 0;
      },
      { timeoutMs: options.settleTimeoutMs, intervalMs: 1_000, what: 'every event to be accounted for' },
    ).then(
      () => true,
      () => false,
    );
    const settleMs = Date.now() - startedMs - setUpMs - loadMs;
    const copies = await countTaskCopies({
      kafkaBrokers: stack.kafkaBrokers,
      schemaRegistryUrl: stack.schemaRegistryUrl,
      topic: `${TOPIC_PREFIX}.deliveries`,
    });
    return {
      ledger: ledgerNow(),
      accepted: load.accepted.length,
      rejected: load.failed,
      faults,
      unexpectedExits: fleet.unexpectedExits,
      undecodableDeadLetters: deadLetters.undecodable(),
      requests: destinations.map((d) => ({ name: d.name, requests: d.requests() })),
      settled,
      timingsMs: { setUp: setUpMs, load: loadMs, settle: settleMs, total: Date.now() - startedMs },
      outputTail: fleet.outputTail(),
      duplicateCauses: duplicateCauses(
        destinations.map((d) => d.deliveries()),
        faults.timeline,
      ),
      startedMs: startedMs + setUpMs,
      taskCopies: destinations.map((d) => ({
        name: d.name,
        extra: copies.extraByDestination.get(d.destinationId) ?? 0,
      })),
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

function adminClient(baseUrl: string) {
  return async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
    return JSON.parse(text) as T;
  };
}
