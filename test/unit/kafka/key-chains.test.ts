import { KeyChains } from '../../../src/kafka/key-chains';

/** A promise with its resolve, to settle work by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const ticks = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyChains', () => {
  it('runs the work of one key one after another, other keys at once', async () => {
    const chains = new KeyChains();
    const started: string[] = [];
    const first = gate();
    chains.run('a', async () => {
      started.push('a1');
      await first.promise;
    });
    chains.run('a', async () => void started.push('a2'));
    chains.run('b', async () => void started.push('b1'));
    await ticks();
    expect(started).toEqual(['a1', 'b1']);
    first.open();
    await ticks();
    expect(started).toEqual(['a1', 'b1', 'a2']);
  });

  it('lets the next work of a key start once the running one calls next, before it is done', async () => {
    const chains = new KeyChains();
    const started: string[] = [];
    const handed = gate();
    const done = gate();
    chains.run('a', async (next) => {
      started.push('a1');
      await handed.promise;
      next();
      await done.promise;
      started.push('a1 done');
    });
    chains.run('a', async () => void started.push('a2'));
    chains.run('a', async () => void started.push('a3'));
    await ticks();
    expect(started).toEqual(['a1']);
    handed.open();
    await ticks();
    expect(started).toEqual(['a1', 'a2', 'a3']);
    done.open();
    await ticks();
    expect(started).toEqual(['a1', 'a2', 'a3', 'a1 done']);
  });
});
