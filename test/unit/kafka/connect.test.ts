import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { connectWhenReachable, isUnreachableBrokerError } from '../../../src/kafka/client';
import { silentLogger } from '../../../src/observability/logger';

const refused = () =>
  new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('connect ECONNREFUSED'), {
    retryCount: 8,
    retryTime: 1_000,
  });

describe('connecting while the brokers are not reachable yet', () => {
  it('tells an unreachable broker (kafkajs gave up on the connection) from other failures', () => {
    expect(isUnreachableBrokerError(refused())).toBe(true);
    expect(isUnreachableBrokerError(new KafkaJSConnectionError('reset'))).toBe(true);
    expect(isUnreachableBrokerError(new KafkaJSProtocolError('SASL authentication failed'))).toBe(false);
    expect(isUnreachableBrokerError(new Error('boom'))).toBe(false);
  });

  it('waits out a broker that comes back, instead of failing start-up', async () => {
    let calls = 0;
    const client = {
      connect: async () => {
        calls++;
        if (calls < 3) throw refused();
      },
    };
    await connectWhenReachable(client, silentLogger(), 'test');
    expect(calls).toBe(3);
  });

  it('fails at once on anything else, e.g. bad credentials', async () => {
    let calls = 0;
    const client = {
      connect: async () => {
        calls++;
        throw new KafkaJSProtocolError('SASL authentication failed');
      },
    };
    await expect(connectWhenReachable(client, silentLogger(), 'test')).rejects.toThrow('SASL');
    expect(calls).toBe(1);
  });
});
