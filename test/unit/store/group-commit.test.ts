import { expect } from 'chai';
import { groupCommit, groupReadDistinct, MAX_GROUP } from '../../../server/store/group-commit.js';

describe('groupCommit', () => {
  it('writes the items submitted together in one group, in order, and gives each its own result', async () => {
    const groups: number[][] = [];
    const submit = groupCommit(async (items: number[]) => {
      groups.push(items);
      return items.map((n) => n * 10);
    });
    const results = await Promise.all([1, 2, 3, 4].map(submit));
    expect(results).to.deep.equal([10, 20, 30, 40]);
    expect(groups).to.deep.equal([[1, 2, 3, 4]]);
  });

  it('gathers what arrives during a write into the next group', async () => {
    const groups: number[][] = [];
    let release!: () => void;
    const firstWrite = new Promise<void>((resolve) => (release = resolve));
    const submit = groupCommit(async (items: number[]) => {
      groups.push(items);
      if (groups.length === 1) await firstWrite;
      return items;
    });
    const first = submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [2, 3, 4].map(submit);
    release();
    expect(await Promise.all([first, ...later])).to.deep.equal([1, 2, 3, 4]);
    expect(groups).to.deep.equal([[1], [2, 3, 4]]);
  });

  it('writes each item of a failed group on its own: only the item that fails alone is refused', async () => {
    const submit = groupCommit(async (items: number[]) => {
      if (items.includes(13)) throw new Error(`13 is refused (group of ${items.length})`);
      return items;
    });
    const settled = await Promise.allSettled([11, 12, 13, 14].map(submit));
    expect(settled.map((s) => s.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((settled[2] as PromiseRejectedResult).reason.message).to.equal('13 is refused (group of 1)');
  });

  it(`splits a burst into groups of at most ${MAX_GROUP}`, async () => {
    const sizes: number[] = [];
    const submit = groupCommit(async (items: number[]) => {
      sizes.push(items.length);
      return items;
    });
    await Promise.all(Array.from({ length: MAX_GROUP * 2 + 1 }, (_, i) => submit(i)));
    expect(sizes).to.deep.equal([MAX_GROUP, MAX_GROUP, 1]);
  });

  it('refuses, and never leaves waiting, items whose write returns the wrong number of results', async () => {
    const submit = groupCommit(async (items: number[]) => items.slice(1));
    const settled = await Promise.allSettled([1, 2].map(submit));
    expect(settled.every((s) => s.status === 'rejected')).to.equal(true);
  });
});

describe('groupReadDistinct', () => {
  it('reads the distinct items of a group once, in order of first appearance, and answers every item', async () => {
    const groups: string[][] = [];
    const read = groupReadDistinct(
      (item: { key: string; n: number }) => item.key,
      async (items) => {
        groups.push(items.map((i) => `${i.key}${i.n}`));
        return items.map((i) => ({ of: i.key }));
      },
    );
    const items = [
      { key: 'a', n: 1 },
      { key: 'b', n: 2 },
      { key: 'a', n: 3 },
      { key: 'c', n: 4 },
      { key: 'b', n: 5 },
    ];
    const results = await Promise.all(items.map(read));
    expect(groups).to.deep.equal([['a1', 'b2', 'c4']]);
    expect(results.map((r) => r.of)).to.deep.equal(['a', 'b', 'a', 'c', 'b']);
    expect(results[0]).to.equal(results[2]);
  });

  it('reads again in a later group what an earlier group read', async () => {
    let reads = 0;
    const read = groupReadDistinct(
      (key: string) => key,
      async (keys) => keys.map(() => ++reads),
    );
    expect(await read('a')).to.equal(1);
    expect(await read('a')).to.equal(2);
  });

  it('refuses every item when the read returns the wrong number of results', async () => {
    const read = groupReadDistinct(
      (key: string) => key,
      async (keys) => keys.slice(1),
    );
    const settled = await Promise.allSettled(['a', 'a', 'b'].map(read));
    expect(settled.map((s) => s.status)).to.deep.equal(['rejected', 'rejected', 'rejected']);
  });

  it('reads the distinct items of a failed group again each on its own, all at once: only a failing one is refused', async () => {
    const reads: string[][] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const read = groupReadDistinct(
      (key: string) => key,
      async (keys) => {
        reads.push(keys);
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        if (keys.includes('bad')) throw new Error(`cannot read ${keys.join(', ')}`);
        return keys.map((k) => k.toUpperCase());
      },
    );
    const settled = await Promise.allSettled(['a', 'bad', 'b', 'a', 'bad'].map(read));
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).to.deep.equal([
      'A',
      'cannot read bad',
      'B',
      'A',
      'cannot read bad',
    ]);
    // The group, then each distinct key once, concurrently.
    expect(reads[0]).to.deep.equal(['a', 'bad', 'b']);
    expect(reads.slice(1).sort()).to.deep.equal([['a'], ['b'], ['bad']]);
    expect(mostInFlight).to.equal(3);
  });
});
