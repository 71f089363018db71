import type { Scenario } from '../lib/scenario';
import { audiencesScenario } from './audiences';
import { backlogScenario } from './backlog';
import { burstScenario } from './burst';
import { e2eScenario } from './e2e';
import { ingestScenario } from './ingest';
import { isolation3of4Scenario, isolation9of10Scenario, isolationScenario } from './isolation';
import { latencyScenario } from './latency';
import { processesScenario } from './processes';
import { producerScenario } from './producer';
import { replicasScenario } from './replicas';
import { retryLatenessScenario } from './retry-lateness';

/** Every scenario, in the order `npm run bench` runs them. A new one is a module plus a line here. */
export const SCENARIOS: readonly Scenario[] = [
  ingestScenario,
  burstScenario,
  e2eScenario,
  processesScenario,
  replicasScenario,
  latencyScenario,
  isolationScenario,
  isolation3of4Scenario,
  isolation9of10Scenario,
  retryLatenessScenario,
  producerScenario,
  audiencesScenario,
  backlogScenario,
];
