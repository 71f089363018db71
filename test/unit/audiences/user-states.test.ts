import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LmdbUserDisk, diskKey, fromStored, toStored } from '../../../src/audiences/state-disk';
import { emptyUserState, type UserState } from '../../../src/audiences/user-state';
import { CachedUserStates } from '../../../src/audiences/user-states';
import { MemoryDisk } from './memory-disk';

const user = (id: string, plan = 'free'): UserState => ({
  ...emptyUserState('s', { userId: id }),
  traits: { plan },
});

describe('CachedUserStates', () => {
  it('holds at most cacheUsers written states plus a batch of changed ones; the rest is on disk', () => {
    const disk = new MemoryDisk();
    const users = new CachedUserStates({ disk, cacheUsers: 2, writeBatchUsers: 3 });
    for (let i = 0; i < 10; i++) users.set(`s:u${i}`, user(`u${i}`));
    expect(users.size).toBe(10);
    expect(disk.stored.size).toBe(9); // three batches of three written; one waits
    expect(users.heldUsers).toBeLessThanOrEqual(2 + 3);
    expect(users.get('s:u0')!.userId).toBe('u0');
    expect(users.get('s:u9')!.userId).toBe('u9');
    expect(users.heldUsers).toBeLessThanOrEqual(2 + 3);
    expect(users.get('s:nobody')).toBeUndefined();
  });

  it('hands out one object per user while it is held, so changes made to it are kept by set', () => {
    const disk = new MemoryDisk();
    const users = new CachedUserStates({ disk, cacheUsers: 10 });
    users.set('s:u1', user('u1'));
    const state = users.get('s:u1')!;
    expect(users.get('s:u1')).toBe(state);
    state.traits.plan = 'pro';
    users.set('s:u1', state);
    expect(users.size).toBe(1); // a set of a known user is no new user
    const reads = disk.reads;
    expect(users.get('s:u1')!.traits.plan).toBe('pro');
    expect(disk.reads).toBe(reads); // from the cache
  });

  it('with no cache at all, every read goes to disk and nothing set is lost', () => {
    const disk = new MemoryDisk();
    const users = new CachedUserStates({ disk, cacheUsers: 0, writeBatchUsers: 1 });
    users.set('s:u1', user('u1'));
    const state = users.get('s:u1')!;
    state.traits.plan = 'pro';
    users.set('s:u1', state);
    expect(users.heldUsers).toBe(0);
    expect(users.get('s:u1')!.traits.plan).toBe('pro');
    expect(disk.reads).toBe(2);
  });

  it('deletes, before and after they are written, and counts users exactly', () => {
    const users = new CachedUserStates({ disk: new MemoryDisk(), cacheUsers: 1, writeBatchUsers: 2 });
    users.set('s:a', user('a'));
    users.delete('s:a'); // still waiting to be written
    users.set('s:b', user('b'));
    users.set('s:c', user('c'));
    users.delete('s:b'); // written already
    users.delete('s:nobody');
    expect(users.size).toBe(1);
    expect(users.get('s:a')).toBeUndefined();
    expect(users.get('s:b')).toBeUndefined();
    expect([...users.entries()].map(([k]) => k)).toEqual(['s:c']);
    users.set('s:b', user('b'));
    expect(users.size).toBe(2);
  });

  it('entries visits every user once, page by page, while visited users are changed', () => {
    const users = new CachedUserStates({ disk: new MemoryDisk(), cacheUsers: 3, pageUsers: 4 });
    for (let i = 0; i < 10; i++) users.set(`s:u${i}`, user(`u${i}`));
    const seen: string[] = [];
    for (const [key, state] of users.entries()) {
      seen.push(key);
      state.traits.plan = 'pro';
      users.set(key, state);
    }
    expect(seen).toHaveLength(10);
    expect(new Set(seen).size).toBe(10);
    expect([...users.entries()].every(([, s]) => s.traits.plan === 'pro')).toBe(true);
  });

  it('close closes the disk', () => {
    const disk = new MemoryDisk();
    new CachedUserStates({ disk, cacheUsers: 1 }).close();
    expect(disk.closed).toBe(true);
  });
});

describe('stored keys', () => {
  it.each([
    ['s:u1', 's:u1'],
    ['s:' + 'x'.repeat(1_022), 's:' + 'x'.repeat(1_022)],
  ])('a user key of up to 1,024 bytes is its own stored key', (key, stored) => {
    expect(diskKey(key)).toBe(stored);
    expect(toStored(key, user('u'))).toEqual(user('u'));
  });

  it('a longer key is stored under its hash, with the key kept beside the state', () => {
    const key = 's:' + 'é'.repeat(600);
    const stored = diskKey(key);
    expect(stored.startsWith('\u0000sha256:')).toBe(true);
    expect(stored).toHaveLength('\u0000sha256:'.length + 64);
    expect(fromStored(stored, toStored(key, user('u')))).toEqual([key, user('u')]);
    expect(fromStored('s:u', user('u'))).toEqual(['s:u', user('u')]);
  });
});

describe('LmdbUserDisk', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hookline-audience-state-test-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps states in a file that is unlinked at once; pages in key order; long keys too', () => {
    const disk = LmdbUserDisk.open(dir, 3);
    try {
      expect(fs.readdirSync(dir)).toEqual([]);
      const long = 's:' + 'y'.repeat(3_000);
      disk.write(
        new Map<string, UserState | null>([
          ['s:b', user('b')],
          ['s:a', user('a', 'pro')],
          [long, user('long')],
          ['s:c', user('c')],
        ]),
      );
      disk.write(new Map([['s:c', null]]));
      expect(disk.get('s:a')!.traits.plan).toBe('pro');
      expect(disk.get('s:c')).toBeUndefined();
      expect(disk.has('s:b')).toBe(true);
      expect(disk.get(long)!.userId).toBe('long');
      const first = disk.page(undefined, 2);
      const rest = disk.page(first[first.length - 1]![0], 2);
      expect([...first, ...rest].map(([k]) => k).sort()).toEqual([long, 's:a', 's:b'].sort());
      expect(rest).toHaveLength(1);
    } finally {
      disk.close();
    }
  });

  it('a partition opened again starts empty', () => {
    const a = LmdbUserDisk.open(dir, 4);
    a.write(new Map([['s:a', user('a')]]));
    a.close();
    const b = LmdbUserDisk.open(dir, 4);
    expect(b.page(undefined, 10)).toEqual([]);
    b.close();
  });
});
