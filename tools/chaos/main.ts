/**
 * `npm run chaos [-- --short] [--direct] [--events=N] [--rate=R] [--broker-kills=K]`
 *
 * `--direct`: the killed processes run the router and the worker, which then makes first attempts
 * straight from hookline.events (HOOKLINE_DIRECT_DELIVERY, the path of a process with every role).
 *
 * The long chaos run (tools/chaos/scenario.ts; its short form runs in CI as
 * test/integration/chaos.test.ts): prints progress, a summary line and a table per destination.
 * Exits 1 when an event is lost or the run did not settle.
 */
import pino from 'pino';
import { createLogger } from '../../src/observability/logger';
import { formatDuplicateCauses } from './duplicates';
import { LONG_PROFILE, SHORT_PROFILE, type ChaosProfile } from './profiles';
import { formatTable, summaryLine, taskCopiesLine } from './report';
import { runChaos } from './scenario';

function parseArgs(argv: string[]): ChaosProfile {
  let profile: ChaosProfile = LONG_PROFILE;
  let direct = false;
  const numbers: Record<string, 'events' | 'ratePerSecond' | 'brokerKills'> = {
    '--events': 'events',
    '--rate': 'ratePerSecond',
    '--broker-kills': 'brokerKills',
  };
  const overrides: Partial<Pick<ChaosProfile, 'events' | 'ratePerSecond' | 'brokerKills'>> = {};
  for (const arg of argv) {
    const [flag = '', value] = arg.split('=');
    if (flag === '--short') profile = SHORT_PROFILE;
    else if (flag === '--direct') direct = true;
    else if (flag in numbers && Number(value) >= 0) overrides[numbers[flag]!] = Number(value);
    else
      throw new Error(
        `unknown argument ${arg}; usage: npm run chaos [-- --short] [--direct] [--events=N] [--rate=R] [--broker-kills=K]`,
      );
  }
  return { ...profile, ...overrides, ...(direct && { direct }) };
}

async function main(): Promise<number> {
  const profile = parseArgs(process.argv.slice(2));
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  const startedMs = Date.now();
  const log = (line: string) =>
    process.stderr.write(`[chaos ${((Date.now() - startedMs) / 1_000).toFixed(0).padStart(4)} s] ${line}\n`);
  const logger = createLogger({ name: 'hookline-chaos', level: 'warn', destination: pino.destination(2) });
  const result = await runChaos({ ...profile, logger, log });
  process.stdout.write(`\n${formatTable(result)}\n\n${summaryLine(result)}\n`);
  process.stdout.write(`${formatDuplicateCauses(result.duplicateCauses, result.startedMs)}\n`);
  process.stdout.write(`${taskCopiesLine(result)}\n`);
  for (const exit of result.unexpectedExits)
    process.stdout.write(`unexpected exit of ${exit.name} (code ${exit.code}):\n${exit.outputTail}\n`);
  if (result.undecodableDeadLetters > 0)
    process.stdout.write(`${result.undecodableDeadLetters} undecodable records on the DLQ\n`);
  if (!result.settled || result.ledger.lost > 0) {
    process.stdout.write(`NOT SETTLED or LOST: ${result.ledger.lost} lost\n${result.outputTail}\n`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `chaos run failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
