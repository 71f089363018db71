import { createLogger } from '../../src/observability/logger';
import { formatDuplicateCauses } from '../../tools/chaos/duplicates';
import { SHORT_PROFILE } from '../../tools/chaos/profiles';
import { summaryLine, taskCopiesLine } from '../../tools/chaos/report';
import { runChaos } from '../../tools/chaos/scenario';

/**
 * Issue 14, section 5, the CI form of `npm run chaos` (tools/chaos/): on a Kafka + registry of its
 * own (the global setup's cluster is shared with other test files, so it is never killed),
 * Hookline as one ingest process and two router+worker processes (`--direct`: they make first
 * attempts straight from hookline.events, as a process with every role does by default), 2,000
 * events through the real Segment client while a router+worker is SIGKILLed and restarted every
 * few seconds and the broker is kill -9'd once and restarted on its data. Receivers: two healthy
 * destinations, one whose first URL always answers 500 (failover), one that drops its first 100
 * connections (flapping), three that never answer (hung).
 *
 * What it asserts, once every event is accounted for (polled, with a deadline):
 *  - 0 lost: each accepted event was delivered at least once to each answering destination
 *    (failover and flapping ones included) or is on `hookline.dlq` with a reason;
 *  - a hung destination's tasks all end on `hookline.dlq` (retry_cutoff, or circuit_open when its
 *    breaker was open at the cutoff), none still waiting in a delay topic: the short cutoff
 *    (90 s) is well inside the settle deadline;
 *  - the healthy and failover destinations get every event, none dead-lettered. The flapping one
 *    may have a few dead-lettered (its breaker can stay open past the short cutoff); reported.
 * Duplicates are reported (one summary line), not asserted: see docs/development.md, "The chaos run".
 */
jest.setTimeout(600_000);

test('chaos: worker SIGKILLs and a broker kill -9 lose no event', async () => {
  const log = (line: string) => process.stderr.write(`[chaos] ${line}\n`);
  const result = await runChaos({
    ...SHORT_PROFILE,
    direct: true,
    logger: createLogger({ name: 'chaos', level: 'warn' }),
    log,
  });
  log(summaryLine(result));
  log(formatDuplicateCauses(result.duplicateCauses, result.startedMs));
  log(taskCopiesLine(result));
  // A process started while the broker is down exits and is started again: shown, not a failure.
  for (const exit of result.unexpectedExits)
    log(
      `unexpected exit of ${exit.name} (code ${exit.code}): ${exit.outputTail.split('\n').find(Boolean) ?? ''}`.slice(
        0,
        500,
      ),
    );
  const context = `${summaryLine(result)}\n${JSON.stringify(result.ledger.destinations, null, 1)}\n${result.outputTail}`;

  expect({ settled: result.settled, lost: result.ledger.lost, context }).toMatchObject({
    settled: true,
    lost: 0,
  });
  expect(result.faults.workerKills).toBeGreaterThanOrEqual(SHORT_PROFILE.minWorkerKills);
  expect(result.faults.brokerKills).toBe(1);
  expect(result.accepted).toBeGreaterThan(0);
  for (const d of result.ledger.destinations) {
    if (d.kind === 'flapping') continue; // lost 0 above; dead letters reported
    if (d.kind === 'hung') {
      expect({ name: d.name, reasons: Object.keys(d.deadLettered) }).toEqual({
        name: d.name,
        reasons: expect.arrayContaining([expect.stringMatching(/^(retry_cutoff|circuit_open)$/)]),
      });
    } else {
      expect({ name: d.name, delivered: d.delivered, deadLettered: d.deadLettered }).toEqual({
        name: d.name,
        delivered: result.accepted,
        deadLettered: {},
      });
    }
  }
  expect(result.undecodableDeadLetters).toBe(0);
});
