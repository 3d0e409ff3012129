import { expect } from 'chai';
import pino from 'pino';
import { PUT_BACK_MAX_SECONDS, putBackDelaySeconds, startDeliveryPump, type PumpJob } from '../../../server/jobs/delivery-pump.js';
import type { DeliverOutcome, DeliveryJob, TakeSlot } from '../../../server/jobs/webhook-delivery.js';

describe('jobs/delivery-pump', () => {
  describe('putBackDelaySeconds()', () => {
    it('waits 0.25 s after the first put-back, doubling up to PUT_BACK_MAX_SECONDS', () => {
      expect([0, 1, 2, 3, 6, 7, 20].map(putBackDelaySeconds)).to.deep.equal([0.25, 0.5, 1, 2, 16, 16, 16]);
      expect(PUT_BACK_MAX_SECONDS).to.equal(16);
    });
  });

  describe('startDeliveryPump()', () => {
    // A queue in memory: jobs of partner "slow" (message ids s…) hang until released; those of "fast" (f…) end at once.
    function harness(jobs: PumpJob[], limits = { maxPerPartner: 2, maxInFlight: 10 }) {
      const queue = [...jobs];
      const completed: string[] = [];
      const putBack: Array<{ id: string; delaySeconds: number }> = [];
      const sending = new Map<string, number>();
      let maxSlowSending = 0;
      const hanging: Array<() => void> = [];
      const pump = startDeliveryPump({
        ...limits,
        pollIntervalMs: 20,
        logger: pino({ level: 'silent' }),
        fetch: async (count) => queue.splice(0, count),
        complete: async (ids) => void completed.push(...ids),
        fail: async () => undefined,
        putBack: async (items) => void putBack.push(...items.map(({ job, delaySeconds }) => ({ id: job.id, delaySeconds }))),
        async deliver(job: DeliveryJob, takeSlot: TakeSlot): Promise<DeliverOutcome> {
          const partner = job.messageId.startsWith('s') ? 'slow' : 'fast';
          const release = await takeSlot(partner);
          if (!release) return 'deferred';
          sending.set(partner, (sending.get(partner) ?? 0) + 1);
          if (partner === 'slow') maxSlowSending = Math.max(maxSlowSending, sending.get(partner)!);
          if (partner === 'slow') await new Promise<void>((resolve) => hanging.push(resolve));
          sending.set(partner, sending.get(partner)! - 1);
          release();
          return 'done';
        },
      });
      return { pump, completed, putBack, hanging, maxSlowSending: () => maxSlowSending };
    }
    const job = (id: string): PumpJob => ({ id, data: { messageId: id, attempt: 1 } });
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    };

    it('sends at most maxPerPartner of one partner at once, lines up as many, puts the rest back, and runs another partner’s at once', async () => {
      const jobs = [...Array.from({ length: 8 }, (_, i) => job(`s${i}`)), job('f1'), job('f2')];
      const h = harness(jobs);
      await until(() => h.completed.length === 2 && h.putBack.length === 4);
      expect(h.completed).to.have.members(['f1', 'f2']);
      expect(h.maxSlowSending()).to.equal(2);
      // s0 and s1 send, s2 and s3 wait in line, s4..s7 go back to the queue at once, not as attempts.
      expect(h.putBack).to.deep.equal(['s4', 's5', 's6', 's7'].map((id) => ({ id, delaySeconds: 0.25 })));
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

    it('puts a job back once it has waited in line for a second, counting its put-backs', async () => {
      const h = harness([job('s0'), job('s1'), { id: 's2', data: { messageId: 's2', attempt: 1, putBacks: 3 } }], {
        maxPerPartner: 1,
        maxInFlight: 10,
      });
      await until(() => h.putBack.length === 1);
      expect(h.putBack).to.deep.equal([{ id: 's2', delaySeconds: 2 }]);
      await until(() => h.putBack.length === 2);
      expect(h.putBack[1]).to.deep.equal({ id: 's1', delaySeconds: 0.25 });
      for (const release of h.hanging.splice(0)) release();
      await h.pump.stop();
    });
  });
});
