import { expect } from 'chai';
import { gatheredWake } from '../../../server/jobs/queue.js';

describe('gatheredWake', () => {
  // A manual clock and timer queue: `advance(ms)` moves the clock and runs what came due.
  function harness(ms: number) {
    let time = 0;
    const timers: Array<{ at: number; run: () => void }> = [];
    const wakes: number[] = [];
    const wake = gatheredWake(
      () => wakes.push(time),
      ms,
      () => time,
      (run, delayMs) => timers.push({ at: time + delayMs, run }),
    );
    const advance = (by: number) => {
      time += by;
      for (const due of timers.filter((t) => t.at <= time)) {
        timers.splice(timers.indexOf(due), 1);
        due.run();
      }
    };
    return { wake, wakes, advance, pending: () => timers.length };
  }

  it('wakes at once when idle, and once at the end of the gathering time for all calls made during it', () => {
    const h = harness(100);
    h.wake();
    expect(h.wakes).to.deep.equal([0]);
    h.advance(10);
    h.wake();
    h.advance(20);
    h.wake();
    h.wake();
    expect(h.wakes).to.deep.equal([0]);
    expect(h.pending()).to.equal(1);
    h.advance(70);
    expect(h.wakes).to.deep.equal([0, 100]);
    // Quiet for longer than the gathering time: at once again.
    h.advance(150);
    h.wake();
    expect(h.wakes).to.deep.equal([0, 100, 250]);
    expect(h.pending()).to.equal(0);
  });

  it('under steady calls wakes once per gathering time', () => {
    const h = harness(100);
    for (let t = 0; t < 1000; t += 5) {
      h.wake();
      h.advance(5);
    }
    // The calls after 900 are woken for at 1000, when the loop has moved the clock there.
    expect(h.wakes).to.deep.equal([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
  });
});
