import { deletionRequestSchema } from '../../../src/deletions/spec';
import { HttpError } from '../../../src/http/respond';
import { validated } from '../../../src/http/validation';

/** The 400's issues for a deletion request body, or undefined when it is accepted. */
function issuesOf(body: unknown) {
  try {
    validated(deletionRequestSchema, body);
    return undefined;
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    expect([err.status, err.code]).toEqual([400, 'validation_failed']);
    return err.extra.issues;
  }
}

describe('deletionRequestSchema', () => {
  it.each([{ userId: 'u1' }, { userId: 'u1', sourceIds: ['s1'] }, { userId: 'u1', sourceIds: ['s1', 's2'] }])(
    'accepts %j',
    (body) => {
      expect(issuesOf(body)).toBeUndefined();
    },
  );

  it('refuses a source listed twice (two notifications with one messageId), naming the repeat', () => {
    expect(issuesOf({ userId: 'u1', sourceIds: ['s1', 's2', 's1'] })).toEqual([
      { path: 'sourceIds.2', code: 'duplicate_source', message: 'source s1 is listed more than once' },
    ]);
  });
});
