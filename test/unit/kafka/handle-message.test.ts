import { WorkNotHeldError } from '../../../src/core/errors';
import type { ConsumedMessage } from '../../../src/kafka/consumer-options';
import { handleMessage } from '../../../src/kafka/handle-message';
import { silentLogger } from '../../../src/observability/logger';

const message = { topic: 't', partition: 0, message: { offset: '5' } } as ConsumedMessage;
const noWait = async () => undefined;

describe('handleMessage', () => {
  it.each([
    ['resolves', [undefined], false, 'done', 1],
    ['fails twice, then resolves', [new Error('down'), new Error('down'), undefined], false, 'done', 3],
    ['declines: partition not held', [new WorkNotHeldError()], false, 'not-held', 1],
    ['declines while stopping too', [new WorkNotHeldError()], true, 'not-held', 1],
    ['fails while stopping', [new Error('down')], true, 'abandoned', 1],
  ] as const)('a handler that %s', async (_, results, stopping, outcome, calls) => {
    let call = 0;
    const handler = jest.fn(async () => {
      const result = results[call++];
      if (result) throw result;
    });
    const ended = await handleMessage(handler, message, {
      stopping: () => stopping,
      logger: silentLogger(),
      sleep: noWait,
    });
    expect(ended).toBe(outcome);
    expect(handler).toHaveBeenCalledTimes(calls);
  });
});
