import { deliveredFrom, parseDeliveredFrom } from '../../../src/delivery/delivered-lookup';

describe('deliveredFrom / parseDeliveredFrom', () => {
  it.each([
    ['hookline.deliveries', 2, '41'],
    ['acme.retry.5s', 0, '0'],
    ['a:b', 11, '9007199254740991'],
  ])('reads back %s:%i:%s', (topic, partition, offset) => {
    expect(parseDeliveredFrom(deliveredFrom(topic, partition, offset))).toEqual({
      topic,
      partition,
      offset: Number(offset),
    });
  });

  it.each(['', 'topic', 'topic:1', ':1:2', 'topic:x:2', 'topic:1:-2', 'topic:1:2.5'])(
    'rejects %j',
    (value) => {
      expect(parseDeliveredFrom(value)).toBeUndefined();
    },
  );
});
