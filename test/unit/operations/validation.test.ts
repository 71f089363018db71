import {
  attemptQuerySchema,
  deadLetterQuerySchema,
  redriveBodySchema,
  replayBodySchema,
} from '../../../src/operations/validation';

describe('operations request validation', () => {
  it.each([
    [{}, { limit: 100 }],
    [
      { limit: '1000', destinationId: 'd' },
      { limit: 1_000, destinationId: 'd' },
    ],
    [{ since: '2024-05-01T10:00:00Z', until: '2024-05-01T11:00:00+01:00' }, undefined],
    [{ since: '2024-05-01T10:00:00Z', until: '2024-05-01T09:00:00Z' }, undefined],
    [{ limit: '0' }, undefined],
    [{ limit: '1001' }, undefined],
    [{ limit: 'ten' }, undefined],
    [{ since: 'yesterday' }, undefined],
    [{ destination: 'typo' }, undefined],
  ])('dead-letter query %j → %j', (query, expected) => {
    const result = deadLetterQuerySchema.safeParse(query);
    expect(result.success ? result.data : undefined).toEqual(expected);
  });

  it.each([
    [{ outcome: 'dead_lettered' }, true],
    [{ outcome: 'deferred', messageId: 'm', limit: '5' }, true],
    [{ outcome: 'lost' }, false],
    [{ messageId: '' }, false],
  ])('attempt query %j valid: %s', (query, valid) => {
    expect(attemptQuerySchema.safeParse(query).success).toBe(valid);
  });

  it.each([
    [{}, true],
    [{ destinationId: 'd', since: '2024-05-01T10:00:00.000Z', taskIds: ['a'] }, true],
    [{ taskIds: [] }, false],
    [{ taskIds: Array(1_001).fill('a') }, false],
    [{ destination: 'd' }, false],
  ])('redrive body %j valid: %s', (body, valid) => {
    expect(redriveBodySchema.safeParse(body).success).toBe(valid);
  });

  it.each([
    [{ since: '2024-05-01T10:00:00.000Z' }, true],
    [{}, false],
    [{ since: '2024-05-01' }, false],
    [{ since: '2024-05-01T10:00:00Z', until: '2024-05-02T10:00:00Z' }, false],
  ])('replay body %j valid: %s', (body, valid) => {
    expect(replayBodySchema.safeParse(body).success).toBe(valid);
  });
});
