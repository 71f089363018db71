/** Where Hookline finds Kafka and the Confluent-compatible schema registry. */
export interface ClusterEndpoints {
  kafkaBrokers: string[];
  /** Base URL for `@kafkajs/confluent-schema-registry`, e.g. `http://127.0.0.1:8081/apis/ccompat/v7`. */
  schemaRegistryUrl: string;
}

export interface RunningStack extends ClusterEndpoints {
  kind: 'local' | 'containers';
  /** Stops every process or container of the stack and removes its data. Idempotent. */
  stop(): Promise<void>;
}

export type ClusterKind = 'env' | 'detached' | 'containers' | 'local';

export interface ResolvedCluster extends ClusterEndpoints {
  kind: ClusterKind;
  /** True when this call started the cluster (and `stop()` tears it down). */
  started: boolean;
  /** Stops the cluster if this call started it; a no-op otherwise. */
  stop(): Promise<void>;
}
