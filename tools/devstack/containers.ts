import type { Logger } from '../../src/observability/logger';
import { errorMessage } from '../../src/core/errors';
import { StackError } from './errors';
import { createDevTopics } from './kafka-client';
import { findFreePorts } from './ports';
import type { RunningStack } from './types';

const KAFKA_IMAGE = 'apache/kafka:3.9.1';
const REGISTRY_IMAGE = 'confluentinc/cp-schema-registry:7.7.1';

/**
 * True when testcontainers finds a container runtime and `HOOKLINE_TESTCONTAINERS` is not `0`.
 * No runtime is the normal case on machines without Docker: logged at debug level only.
 */
export async function containerRuntimeAvailable(options: {
  logger: Logger;
  env: NodeJS.ProcessEnv;
}): Promise<boolean> {
  if (options.env.HOOKLINE_TESTCONTAINERS === '0') return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch (err) {
    options.logger.debug({ reason: errorMessage(err) }, 'no container runtime; not using testcontainers');
    return false;
  }
}

/**
 * Kafka (KRaft, one node) and a Confluent schema registry in containers on a shared network.
 * Kafka's host listener is bound to a host port chosen up front, because it must advertise the
 * address clients use and that is only known after start otherwise.
 */
export async function startContainerStack(options: { logger: Logger }): Promise<RunningStack> {
  const { GenericContainer, Network, Wait, getContainerRuntimeClient } = await import('testcontainers');
  const { logger } = options;
  const startedMs = Date.now();
  const host = (await getContainerRuntimeClient()).info.containerRuntime.host;
  const [kafkaHostPort] = await findFreePorts({ count: 1 });
  const network = await new Network().start();
  const kafka = await new GenericContainer(KAFKA_IMAGE)
    .withNetwork(network)
    .withNetworkAliases('kafka')
    .withExposedPorts({ container: 9092, host: kafkaHostPort })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_LISTENERS: 'HOST://:9092,INTERNAL://:19092,CONTROLLER://:9093',
      KAFKA_ADVERTISED_LISTENERS: `HOST://${host}:${kafkaHostPort},INTERNAL://kafka:19092`,
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'HOST:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT',
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'INTERNAL',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .start();
  const registry = await new GenericContainer(REGISTRY_IMAGE)
    .withNetwork(network)
    .withExposedPorts(8081)
    .withEnvironment({
      SCHEMA_REGISTRY_HOST_NAME: 'schema-registry',
      SCHEMA_REGISTRY_LISTENERS: 'http://0.0.0.0:8081',
      SCHEMA_REGISTRY_KAFKASTORE_BOOTSTRAP_SERVERS: 'PLAINTEXT://kafka:19092',
    })
    .withWaitStrategy(Wait.forHttp('/subjects', 8081))
    .start()
    .catch(async (err: unknown) => {
      await kafka.stop();
      await network.stop();
      throw new StackError('the schema registry container did not start', { stage: 'start', cause: err });
    });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await Promise.allSettled([registry.stop(), kafka.stop()]);
      await network.stop();
    })();
    return stopping;
  };
  const kafkaBrokers = [`${host}:${kafkaHostPort}`];
  try {
    await createDevTopics({ brokers: kafkaBrokers, logger });
  } catch (err) {
    await stop();
    throw new StackError('could not create Hookline topics in the Kafka container', {
      stage: 'topics',
      cause: err,
    });
  }
  const schemaRegistryUrl = `http://${registry.getHost()}:${registry.getMappedPort(8081)}`;
  logger.info(
    { kafkaBrokers, schemaRegistryUrl, durationMs: Date.now() - startedMs },
    'container stack ready',
  );
  return { kind: 'containers', kafkaBrokers, schemaRegistryUrl, stop };
}
