/**
 * A real Kafka and schema registry for development and tests, without Docker: see
 * /work/shared/LOCAL-STACK.md and `npm run stack -- up|down|status|run`.
 */
export { resolveCluster, type ResolveClusterOptions } from './resolve';
export { startLocalStack, type StartLocalStackOptions } from './stack';
export { StackError } from './errors';
export type { ClusterEndpoints, ClusterKind, ResolvedCluster, RunningStack } from './types';
