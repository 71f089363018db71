/**
 * A real Kafka 3.9.1 (KRaft) and a Confluent-compatible schema registry (Apicurio 3.0.9) for
 * development and tests, without Docker: child processes from Maven Central, cached, supervised
 * so none outlives its owner. CLI: `npm run stack -- up|down|status|run` (cli.ts).
 */
export { resolveCluster, type ResolveClusterOptions } from './resolve';
export { launchLocalStack, startLocalStack, type LocalStack, type StartLocalStackOptions } from './stack';
export type { KafkaNode } from './kafka';
export { StackError } from './errors';
export type { ClusterEndpoints, ClusterKind, ResolvedCluster, RunningStack } from './types';
