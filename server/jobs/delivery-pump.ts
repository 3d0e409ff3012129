/**
 * Runs webhook delivery jobs each on its own (DESIGN 6.6), so that a receiver that is slow or never answers
 * holds up its own partner's deliveries and no one else's.
 *
 * pg-boss's work() hands a worker a batch and completes the batch when the whole of it is done: one hanging
 * receiver in a batch of 25 held the other 24 (other partners' deliveries) for the full time limit, and a
 * few such batches held every worker. The pump instead takes due jobs with fetch(), runs each as soon as it
 * has it, and completes each as soon as it is done (completions are grouped into one statement per turn).
 *
 * Limits, per instance:
 * - `maxPerPartner` requests in flight to one partner's receiver. A job of a partner at its limit waits in
 *   that partner's line in memory (at most `maxPerPartner` jobs, for at most LINE_WAIT_MS), and otherwise
 *   goes back to the queue, due again after a pause that doubles each time (PUT_BACK_FIRST_SECONDS up to
 *   PUT_BACK_MAX_SECONDS). Going back is not an attempt: nothing was sent, and nothing is recorded.
 * - `maxInFlight` jobs being prepared or sent, all partners together: the pump takes no more until one ends.
 * A job that fetch() took is in pg-boss's active state until it is completed, failed or put back, so a
 * process that dies with jobs in hand leaves them to be run again when they expire.
 */
import type { Logger } from 'pino';
import { groupCommit } from '../store/group-commit.js';
import type { DeliverOutcome, DeliveryJob, TakeSlot } from './webhook-delivery.js';

/** Jobs one fetch takes at most. */
export const PUMP_FETCH_MAX = 50;
/** How long a job waits in its partner's line for a free slot before it goes back to the queue. */
export const LINE_WAIT_MS = 1_000;
/** Pause before a job put back for the first time is due again; it doubles with each further put-back. */
export const PUT_BACK_FIRST_SECONDS = 0.25;
/** Longest pause of a put-back job (a receiver that holds every slot for the whole time limit frees them that slowly). */
export const PUT_BACK_MAX_SECONDS = 16;
/** How long stop() waits for requests in flight. */
export const STOP_WAIT_MS = 5_000;

/** A delivery job as pg-boss's fetch() gives it; `putBacks` counts how often it went back to the queue. */
export interface PumpJob {
  id: string;
  data: DeliveryJob & { putBacks?: number };
}

/** What the pump needs: the queue's operations, the delivery, and its limits. */
export interface DeliveryPumpDeps {
  /** Takes up to `count` due jobs, marking them active. */
  fetch(count: number): Promise<PumpJob[]>;
  /** Marks jobs done. */
  complete(ids: string[]): Promise<void>;
  /** Marks a job failed: the queue retries it (a database failure, not a failed attempt: those are recorded). */
  fail(job: PumpJob, err: unknown): Promise<void>;
  /** Puts jobs back in the queue, each due after its pause, each in place of the job it was (one change). */
  putBack(jobs: Array<{ job: PumpJob; delaySeconds: number }>): Promise<void>;
  /** Runs one job; it sends only with a slot `takeSlot` gives it. */
  deliver(job: DeliveryJob, takeSlot: TakeSlot): Promise<DeliverOutcome>;
  /** Requests in flight to one partner's receiver at most. */
  maxPerPartner: number;
  /** Jobs being prepared or sent at most, all partners together. */
  maxInFlight: number;
  /** How often an idle pump looks for due jobs (retries and put-back jobs come due without a wake). */
  pollIntervalMs: number;
  logger: Logger;
  /** Told of each job that failed (metrics). */
  onJobFailure?(): void;
}

/** A running pump. */
export interface DeliveryPump {
  /** Jobs were queued: look now instead of at the next poll. */
  wake(): void;
  /** Stops taking jobs, puts the waiting ones back, and waits (up to STOP_WAIT_MS) for those in flight. */
  stop(): Promise<void>;
}

/** The pause before a job put back `putBacks` times before is due again. */
export function putBackDelaySeconds(putBacks: number): number {
  return Math.min(PUT_BACK_FIRST_SECONDS * 2 ** putBacks, PUT_BACK_MAX_SECONDS);
}

// One partner's requests in flight and its line of jobs waiting for one of them.
interface Lane {
  sending: number;
  line: Array<(release: (() => void) | undefined) => void>;
}

/** Starts taking and running delivery jobs. */
export function startDeliveryPump(deps: DeliveryPumpDeps): DeliveryPump {
  const lanes = new Map<string, Lane>();
  // Jobs in hand (fetched, not yet handed back), and those of them waiting in a line.
  let taken = 0;
  let waiting = 0;
  let stopped = false;
  // The last look found as many jobs as it asked for, or had no room: a job's end may let it take more.
  let hungry = false;
  // A wake asked for since the loop last looked (so one that comes while it looks is not lost).
  let signalled = false;
  let wakeUp: (() => void) | undefined;
  const signal = () => {
    signalled = true;
    wakeUp?.();
  };
  const running = new Set<Promise<void>>();

  const report = (what: string) => (err: unknown) => deps.logger.warn({ err }, what);
  const complete = groupCommit(async (ids: string[]) => {
    await deps.complete(ids);
    return ids.map(() => undefined);
  });
  const putBack = groupCommit(async (items: Array<{ job: PumpJob; delaySeconds: number }>) => {
    await deps.putBack(items);
    return items.map(() => undefined);
  });

  const takeSlot: TakeSlot = (partnerId) => {
    const lane = lanes.get(partnerId) ?? { sending: 0, line: [] };
    lanes.set(partnerId, lane);
    const release = () => {
      const next = lane.line.shift();
      // The slot passes to the next in line as it is; otherwise it is free.
      if (next) return next(release);
      lane.sending--;
      if (lane.sending === 0) lanes.delete(partnerId);
    };
    if (lane.sending < deps.maxPerPartner) {
      lane.sending++;
      return Promise.resolve(once(release));
    }
    // Lines are short and waits brief: a job in a line is still in hand, active in the queue, and a line of
    // a receiver that hangs must not keep other partners' jobs out for long.
    if (stopped || lane.line.length >= deps.maxPerPartner || waiting >= deps.maxInFlight) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      waiting++;
      const entry = (slot: (() => void) | undefined) => {
        clearTimeout(timer);
        waiting--;
        resolve(slot && once(slot));
      };
      const timer = setTimeout(() => {
        lane.line.splice(lane.line.indexOf(entry), 1);
        entry(undefined);
      }, LINE_WAIT_MS);
      lane.line.push(entry);
    });
  };

  async function run(job: PumpJob): Promise<void> {
    try {
      const outcome = await deps.deliver(job.data, takeSlot);
      if (outcome === 'done') {
        await complete(job.id).catch(report('webhook job not completed; it runs again when it expires, and finds its attempt recorded'));
      } else {
        const delaySeconds = stopped ? 0 : putBackDelaySeconds(job.data.putBacks ?? 0);
        await putBack({ job, delaySeconds }).catch(report('webhook job not put back; it runs again when it expires'));
      }
    } catch (err) {
      deps.onJobFailure?.();
      await deps.fail(job, err).catch(report('webhook job not failed; it runs again when it expires'));
    } finally {
      taken--;
      if (hungry) signal();
    }
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      signalled = false;
      const room = Math.min(PUMP_FETCH_MAX, deps.maxInFlight - (taken - waiting));
      let jobs: PumpJob[] = [];
      if (room > 0) {
        try {
          jobs = await deps.fetch(room);
        } catch (err) {
          report('webhook jobs not fetched; will try again')(err);
        }
        for (const job of jobs) {
          taken++;
          const started = run(job);
          running.add(started);
          void started.finally(() => running.delete(started));
        }
      }
      hungry = room <= 0 || jobs.length === room;
      if (stopped || signalled || (hungry && room > 0)) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => resolve(), deps.pollIntervalMs);
        wakeUp = () => {
          clearTimeout(timer);
          wakeUp = undefined;
          resolve();
        };
      });
    }
  }
  const looping = loop();

  return {
    wake: signal,
    async stop() {
      stopped = true;
      signal();
      await looping;
      // The jobs waiting in lines go back to the queue at once, due now, for another instance to take.
      for (const lane of lanes.values()) for (const entry of lane.line.splice(0)) entry(undefined);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, STOP_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}

// `release`, callable once (a second call would free a slot twice).
function once(release: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}
