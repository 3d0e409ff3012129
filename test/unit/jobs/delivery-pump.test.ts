import { expect } from 'chai';
import pino from 'pino';
import { LINE_WAIT_MS, startDeliveryPump, type PumpJob } from '../../../server/jobs/delivery-pump.js';
import type { DeliverOutcome, DeliveryJob, TakeSlot } from '../../../server/jobs/webhook-delivery.js';

describe('jobs/delivery-pump', () => {
  describe('startDeliveryPump()', () => {
    const T0 = Date.parse('2026-06-14T09:00:00Z');
    // A queue in memory: jobs of partner "slow" (message ids s…) hang until released; those of "fast" (f…) end
    // at once; "boom" (b…) throws. The pump's clock is `clock.ms`, moved by hand.
    function harness(
      jobs: PumpJob[],
      options: { maxPerPartner?: number; maxInFlight?: number; putBack?: () => Promise<void>; fail?: () => Promise<void> } = {},
    ) {
      const queue = [...jobs];
      const clock = { ms: T0 };
      const completed: string[] = [];
      const failed: string[] = [];
      const putBack: Array<{ id: string; afterMs: number }> = [];
      const warnings: string[] = [];
      const sending = new Map<string, number>();
      let maxSlowSending = 0;
      const hanging: Array<() => void> = [];
      const signals: AbortSignal[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
      const pump = startDeliveryPump({
        maxPerPartner: options.maxPerPartner ?? 2,
        maxInFlight: options.maxInFlight ?? 10,
        attemptTimeoutMs: 1_000,
        pollIntervalMs: 20,
        logger,
        now: () => clock.ms,
        fetch: async (count) => queue.splice(0, count),
        complete: async (ids) => void completed.push(...ids),
        async fail(job) {
          failed.push(job.id);
          await options.fail?.();
        },
        async putBack(items) {
          await options.putBack?.();
          putBack.push(...items.map(({ job, startAfter }) => ({ id: job.id, afterMs: startAfter.getTime() - clock.ms })));
        },
        async deliver(job: DeliveryJob, takeSlot: TakeSlot, signal: AbortSignal): Promise<DeliverOutcome> {
          if (job.messageId.startsWith('b')) throw new Error('database gone');
          const partner = job.messageId.startsWith('s') ? 'slow' : 'fast';
          const release = await takeSlot(partner);
          if (!release) return 'deferred';
          sending.set(partner, (sending.get(partner) ?? 0) + 1);
          if (partner === 'slow') maxSlowSending = Math.max(maxSlowSending, sending.get(partner)!);
          if (partner === 'slow') {
            signals.push(signal);
            await new Promise<void>((resolve) => {
              hanging.push(resolve);
              signal.addEventListener('abort', () => resolve());
            });
          }
          sending.set(partner, sending.get(partner)! - 1);
          release();
          return signal.aborted ? 'deferred' : 'done';
        },
      });
      return { pump, queue, clock, completed, failed, putBack, warnings, hanging, signals, maxSlowSending: () => maxSlowSending };
    }
    const job = (id: string): PumpJob => ({ id, data: { messageId: id, attempt: 1 } });
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 300 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    };

    it('sends at most maxPerPartner of one partner at once, lines up as many, puts the rest back one reservation apart, and runs another partner’s at once', async () => {
      const jobs = [...Array.from({ length: 8 }, (_, i) => job(`s${i}`)), job('f1'), job('f2')];
      const h = harness(jobs);
      await until(() => h.completed.length === 2 && h.putBack.length === 4);
      expect(h.completed).to.have.members(['f1', 'f2']);
      expect(h.maxSlowSending()).to.equal(2);
      // s0 and s1 send, s2 and s3 wait in line, s4..s7 go back: due one slot's share of the assumed hold
      // (the 1 s time limit over 2 slots) after another, not all at once.
      expect(h.putBack).to.deep.equal(['s4', 's5', 's6', 's7'].map((id, i) => ({ id, afterMs: 500 * (i + 1) })));
      // The dispatcher holds the slow partner's outbox rows while its reservations are ahead.
      expect(h.pump.dispatchAllowance()).to.deep.equal(new Map([['slow', 0]]));
      h.clock.ms += 2_001;
      expect(h.pump.dispatchAllowance()).to.deep.equal(new Map([['slow', 2]]));
      // A slot freed passes to the first in line.
      h.hanging.shift()!();
      await until(() => h.completed.includes('s0'));
      expect(h.maxSlowSending()).to.equal(2);
      for (const release of h.hanging.splice(0)) release();
      await until(() => h.completed.length === 5);
      for (const release of h.hanging.splice(0)) release();
      await h.pump.stop();
      expect(h.completed).to.have.members(['f1', 'f2', 's0', 's1', 's2', 's3']);
    });

    it('puts a job back once it has waited in line for LINE_WAIT_MS; a quick slot lets the partner’s rows through again, at its pace', async () => {
      const h = harness([job('s0'), job('s1')], { maxPerPartner: 1 });
      await until(() => h.putBack.length === 1);
      expect(h.putBack).to.deep.equal([{ id: 's1', afterMs: 1_000 }]);
      expect(h.pump.dispatchAllowance().get('slow')).to.equal(0);
      // s0's slot was held for less than a line wait (the clock did not move): the receiver keeps up again,
      // and as fast as it answers the dispatcher may queue what the slots serve in a line wait (here capped
      // by maxInFlight).
      h.hanging.shift()!();
      await until(() => h.completed.includes('s0'));
      expect(h.pump.dispatchAllowance()).to.deep.equal(new Map([['slow', 10]]));
      await h.pump.stop();
    });

    it('paces by the measured hold: slow slots set the spacing of later put-backs', async () => {
      const h = harness([job('s0'), job('s1')], { maxPerPartner: 1 });
      await until(() => h.putBack.length === 1);
      // s0 holds its slot 5 s: the first hold measured is the mean (before it, the 1 s time limit was assumed).
      h.clock.ms += 5_000;
      h.hanging.shift()!();
      await until(() => h.completed.includes('s0'));
      h.queue.push(job('s2'), job('s3'), job('s4'));
      await until(() => h.putBack.length === 2);
      await new Promise((resolve) => setTimeout(resolve, LINE_WAIT_MS + 100));
      await until(() => h.putBack.length === 3);
      // s2 sends; s3 waits in line, s4 goes back at once one spacing after the clock, then s3 after its wait.
      expect(h.putBack.slice(1).map((p) => p.afterMs)).to.deep.equal([5_000, 10_000]);
      // s2 holds 1 s: the mean moves towards it by HOLD_MEAN_WEIGHT (0.3): 3.8 s.
      h.clock.ms += 1_000;
      h.hanging.shift()!();
      await until(() => h.completed.includes('s2'));
      h.queue.push(job('s5'), job('s6'));
      await until(() => h.putBack.length === 4);
      expect(h.putBack[3].afterMs).to.equal(10_000 - 1_000 + 3_800);
      for (const release of h.hanging.splice(0)) release();
      await h.pump.stop();
    });

    it('fails a job whose delivery throws, keeps going when fail() itself rejects, and counts the job out', async () => {
      const h = harness([job('b1'), job('f1')], { maxInFlight: 1, fail: () => Promise.reject(new Error('still gone')) });
      await until(() => h.completed.includes('f1'));
      expect(h.failed).to.deep.equal(['b1']);
      expect(h.warnings).to.include('webhook job not failed; it runs again when it expires');
      // With room for one job in flight, f1 ran only because b1 was counted out.
      expect(h.completed).to.deep.equal(['f1']);
      await h.pump.stop();
    });

    it('keeps going when a put-back is refused: the job is counted out and runs again when it expires', async () => {
      const h = harness([job('s0'), job('s1'), job('s2'), job('f1')], {
        maxPerPartner: 1,
        maxInFlight: 3,
        putBack: () => Promise.reject(new Error('no connection')),
      });
      await until(() => h.completed.includes('f1'));
      expect(h.warnings).to.include('webhook job not put back; it runs again when it expires');
      expect(h.putBack).to.deep.equal([]);
      for (const release of h.hanging.splice(0)) release();
      await h.pump.stop();
    });

    it('stop() aborts requests in flight and puts them and the jobs waiting in lines back, due now', async () => {
      const h = harness([job('s0'), job('s1'), job('s2')], { maxPerPartner: 1 });
      await until(() => h.putBack.length === 1 && h.signals.length === 1);
      // s0 sends (hanging), s1 waits in line, s2 went back.
      const started = Date.now();
      await h.pump.stop();
      expect(Date.now() - started).to.be.below(LINE_WAIT_MS);
      expect(h.signals[0].aborted).to.equal(true);
      expect(h.putBack.slice(1)).to.have.deep.members([
        { id: 's1', afterMs: 0 },
        { id: 's0', afterMs: 0 },
      ]);
      expect(h.completed).to.deep.equal([]);
    });

    it('takeSlot() (test sends) gets a slot as a delivery does: at once when free, in line when not, none after a line wait', async () => {
      const h = harness([job('s0')], { maxPerPartner: 1 });
      await until(() => h.signals.length === 1);
      const other = await h.pump.takeSlot('other');
      expect(other).to.be.a('function');
      other!();
      // s0 holds the slow partner's only slot: a send waits, and gets nothing after LINE_WAIT_MS.
      const started = Date.now();
      expect(await h.pump.takeSlot('slow')).to.equal(undefined);
      expect(Date.now() - started).to.be.at.least(LINE_WAIT_MS - 50);
      // A send waiting when s0 ends gets its slot.
      const waiting = h.pump.takeSlot('slow');
      h.hanging.shift()!();
      const slot = await waiting;
      expect(slot).to.be.a('function');
      await until(() => h.completed.includes('s0'));
      slot!();
      await h.pump.stop();
    });
  });
});
