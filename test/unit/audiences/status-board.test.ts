import { StatusBoard } from '../../../src/audiences/status-index';

describe('StatusBoard', () => {
  it('is live once every partition is, counting the members of the live ones', () => {
    const board = new StatusBoard(2);
    expect(board.statusOf('aud_1')).toEqual({ state: 'computing', members: 0 });
    board.apply({ computationId: 'aud_1', partition: 0, live: true, members: 3 });
    expect(board.statusOf('aud_1')).toEqual({ state: 'computing', members: 3 });
    board.apply({ computationId: 'aud_1', partition: 1, live: true, members: 2 });
    expect(board.statusOf('aud_1')).toEqual({ state: 'live', members: 5 });
    board.apply({ computationId: 'aud_1', partition: 1, live: true, members: 1 });
    expect(board.statusOf('aud_1')).toEqual({ state: 'live', members: 4 });
    board.remove('aud_1:0');
    expect(board.statusOf('aud_1')).toEqual({ state: 'computing', members: 1 });
  });
});
