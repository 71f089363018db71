/**
 * kafkajs, as Hookline's modules import it: its values come from here, never from 'kafkajs'
 * itself (types may; a lint rule says so), so that one module stands between Hookline and its
 * Kafka client (docs/adr/0001-kafka-client.md). Importing it changes nothing in kafkajs: Hookline's
 * own processes apply the fork (kafkajs-fork/) when they create a client, the producer library never.
 */
export * from 'kafkajs';
