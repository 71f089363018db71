/**
 * The consumer-group timings of Hookline's work consumers (router, worker, retry): what decides
 * how soon the partitions of a replica that died (SIGKILL, OOM, lost node) move to the others.
 * One setting drives them, HOOKLINE_KAFKA_SESSION_TIMEOUT:
 *  - the coordinator declares a member dead after `sessionTimeout` without a heartbeat;
 *  - the survivors learn of the rebalance at their next heartbeat, and rejoin;
 * so takeover takes about the session timeout + one heartbeat interval + the rejoin.
 */

/**
 * How long the coordinator waits, in a rebalance, for every member to rejoin (kafkajs's default):
 * a member busy in a batch rejoins once the batch ends, or is left out after this.
 */
export const REBALANCE_TIMEOUT_MS = 60_000;

/** A third of the session timeout (Kafka's advice), at most 3 s (kafkajs's default). */
export function heartbeatIntervalMs(sessionTimeoutMs: number): number {
  return Math.min(3_000, Math.floor(sessionTimeoutMs / 3));
}

/** The kafkajs consumer settings for a session timeout. */
export function groupTimings(sessionTimeoutMs: number): {
  sessionTimeout: number;
  heartbeatInterval: number;
  rebalanceTimeout: number;
} {
  return {
    sessionTimeout: sessionTimeoutMs,
    heartbeatInterval: heartbeatIntervalMs(sessionTimeoutMs),
    rebalanceTimeout: REBALANCE_TIMEOUT_MS,
  };
}
