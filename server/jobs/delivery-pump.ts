/**
 * Runs webhook delivery jobs each on its own (docs/architecture.md#streams-and-webhooks), so that a receiver that is slow or never answers
 * holds up its own partner's deliveries and no one else's.
 *
 * pg-boss's work() hands a worker a batch and completes the batch when the whole of it is done: one hanging
 * receiver in a batch of 25 held the other 24 (other partners' deliveries) for the full time limit, and a
 * few such batches held every worker. The pump instead takes due jobs with fetch(), runs each as soon as it
 * has it, and completes each as soon as it is done (completions are grouped into one statement per turn).
 *
 * Limits, per instance:
 * - `maxPerPartner` requests in flight to one partner's receiver. A job of a partner at its limit waits in
 *   that partner's line in memory (for at most LINE_WAIT_MS; as many jobs as its slots serve in that time
 *   at its measured pace, at least `maxPerPartner`), and otherwise goes back to the queue (not an attempt:
 *   nothing was sent, nothing is recorded).
 * - `maxInFlight` jobs being prepared or sent, all partners together: the pump takes no more until one ends.
 *
 * Pacing a saturated partner. A job put back is due at the partner's next free reservation: the partner's
 * clock (`nextSlotAt`) moves on by (mean time a request holds a slot) / `maxPerPartner` per job put back,
 * starting from the time limit when nothing is measured yet. Its excess jobs thus come due about as fast as
 * slots free, each put back about once, instead of all being polled every few seconds (a doubling pause up to
 * 16 s cost backlog/16 put-backs a second for ever, and every due job of the slow partner stood ahead of other
 * partners' new jobs in pg-boss's created-order fetch). While the clock is ahead of now, the dispatcher leaves
 * the partner's outbox rows undispatched (`dispatchAllowance`), and once it has caught up lets through per
 * round what its slots serve in a line wait: a backlog waits in the outbox, not in the queue, and costs no
 * put-backs. A slot held for less than LINE_WAIT_MS means the receiver keeps up again: the clock catches up
 * at once, and as the measured hold falls the outbox drains at the receiver's own pace (only the few jobs
 * already reserved keep their times).
 *
 * A job that fetch() took is in pg-boss's active state until it is completed, failed or put back, so a
 * process that dies with jobs in hand leaves them to be run again when they expire. stop() aborts the
 * requests in flight and puts their jobs back due at once: a receiver may then get a message twice, with
 * the same webhook-id.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { groupCommit } from '../store/group-commit.js';
import type { DeliverOutcome, DeliveryJob, TakeSlot } from './webhook-delivery.js';

/** Jobs one fetch takes at most. */
export const PUMP_FETCH_MAX = 50;
/** How long a job waits in its partner's line for a free slot before it goes back to the queue. */
export const LINE_WAIT_MS = 1_000;
/** Shortest pause of a job put back (so that it is not fetched again at once). */
export const PUT_BACK_MIN_MS = 250;
/**
 * Furthest ahead a job is put back. Reservations past it (a burst queued before the partner was paced, with
 * the time limit assumed as its hold) are due at it instead: a few more put-backs, but the jobs reserved while
 * a receiver hung are all tried within this long of its recovery.
 */
export const PUT_BACK_HORIZON_MS = 30_000;
/** Weight of the newest slot hold in a partner's mean hold time (an exponential moving average). */
export const HOLD_MEAN_WEIGHT = 0.3;
/** A partner not heard of for this long is forgotten: its measured pace, and its pacing (memory, not behaviour). */
export const PACE_FORGET_MS = 10 * 60_000;
/** How long stop() waits for jobs in hand (aborted requests end at once; this bounds the database work after). */
export const STOP_WAIT_MS = 5_000;

/** A delivery job as pg-boss's fetch() gives it; `retryCount` tells this fetch from a later one of the same job. */
export interface PumpJob {
  id: string;
  data: DeliveryJob & { putBacks?: number };
  retryCount?: number;
}

/** What the pump needs: the queue's operations, the delivery, and its limits. */
export interface DeliveryPumpDeps {
  /** Takes up to `count` due jobs, marking them active. */
  fetch(count: number): Promise<PumpJob[]>;
  /** Marks jobs done. */
  complete(ids: string[]): Promise<void>;
  /** Marks a job failed: the queue retries it (a database failure, not a failed attempt: those are recorded). */
  fail(job: PumpJob, err: unknown): Promise<void>;
  /** Puts jobs back in the queue, each due at `startAfter`, each in place of the job it was (one change). */
  putBack(jobs: Array<{ job: PumpJob; startAfter: Date }>): Promise<void>;
  /** Runs one job; it sends only with a slot `takeSlot` gives it, and abandons its request when `signal` aborts. */
  deliver(job: DeliveryJob, takeSlot: TakeSlot, signal: AbortSignal): Promise<DeliverOutcome>;
  /** Requests in flight to one partner's receiver at most. */
  maxPerPartner: number;
  /** Jobs being prepared or sent at most, all partners together. */
  maxInFlight: number;
  /** Time limit of one request: the hold time assumed for a partner before one is measured. */
  attemptTimeoutMs: number;
  /** How often an idle pump looks for due jobs (retries and put-back jobs come due without a wake). */
  pollIntervalMs: number;
  logger: Logger;
  /** The clock, in milliseconds (default Date.now; tests hand in their own). */
  now?: () => number;
  /** Told of each job that failed (metrics). */
  onJobFailure?(): void;
  /** Told of jobs put back (metrics). */
  onPutBack?(jobs: number): void;
}

/** A running pump. */
export interface DeliveryPump {
  /** Jobs were queued: look now instead of at the next poll. */
  wake(): void;
  /** Takes one of `partnerId`'s slots as a delivery does, waiting in its line (test sends): undefined when none comes free. */
  takeSlot: TakeSlot;
  /**
   * Outbox rows the dispatcher may queue now for each paced partner (one that had a job put back): 0 while
   * its clock is ahead, else the jobs its slots serve in a line wait at its measured pace. A partner not
   * listed is not paced (no limit).
   */
  dispatchAllowance(): Map<string, number>;
  /** Stops taking jobs, aborts requests in flight, puts the jobs in hand back, and waits (up to STOP_WAIT_MS). */
  stop(): Promise<void>;
}

// One partner's requests in flight and its line of jobs waiting for one of them.
interface Lane {
  sending: number;
  line: Array<(release: (() => void) | undefined) => void>;
}

// What the pump knows of a partner's receiver: its mean slot hold (undefined until one is measured), the
// time its next job put back is due, whether any was (paced), and when it was last heard of.
interface Pace {
  meanHoldMs: number | undefined;
  nextSlotAt: number;
  paced: boolean;
  seenAt: number;
}

/** Starts taking and running delivery jobs. */
export function startDeliveryPump(deps: DeliveryPumpDeps): DeliveryPump {
  const now = deps.now ?? Date.now;
  const lanes = new Map<string, Lane>();
  const paces = new Map<string, Pace>();
  const aborting = new AbortController();
  // Every request in flight listens on it (up to maxInFlight): not a leak.
  setMaxListeners(0, aborting.signal);
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
  const putBack = groupCommit(async (items: Array<{ job: PumpJob; startAfter: Date }>) => {
    await deps.putBack(items);
    deps.onPutBack?.(items.length);
    return items.map(() => undefined);
  });

  // A slot of `partnerId`'s, taken: the function that frees it (once), measuring how long it was held.
  const grant = (partnerId: string, lane: Lane) => {
    const since = now();
    const release = () => {
      const at = now();
      const held = at - since;
      const pace = paceOf(partnerId);
      pace.meanHoldMs = pace.meanHoldMs === undefined ? held : pace.meanHoldMs + HOLD_MEAN_WEIGHT * (held - pace.meanHoldMs);
      // A slot that turned over faster than a job waits in line: the receiver keeps up again, and the
      // dispatcher may let its rows through now (as many as its measured pace can take).
      if (held < LINE_WAIT_MS) pace.nextSlotAt = Math.min(pace.nextSlotAt, at);
      const next = lane.line.shift();
      // The slot passes to the next in line, held anew; otherwise it is free.
      if (next) return next(grant(partnerId, lane));
      lane.sending--;
      if (lane.sending === 0) lanes.delete(partnerId);
    };
    return once(release);
  };
  const paceOf = (partnerId: string) => {
    const pace = paces.get(partnerId) ?? { meanHoldMs: undefined, nextSlotAt: 0, paced: false, seenAt: 0 };
    pace.seenAt = now();
    paces.set(partnerId, pace);
    return pace;
  };
  // Jobs of a partner's that its slots serve within one line wait, at its measured pace (at least its slots):
  // how long its line may be, and how many of its rows one dispatch may queue. A receiver that answers in
  // milliseconds takes a burst; one that hangs, only `maxPerPartner`.
  const servedInLineWait = (partnerId: string) => {
    const mean = paces.get(partnerId)?.meanHoldMs;
    if (mean === undefined) return deps.maxPerPartner;
    return Math.min(deps.maxInFlight, Math.max(deps.maxPerPartner, Math.floor((deps.maxPerPartner * LINE_WAIT_MS) / Math.max(1, mean))));
  };
  const laneOf = (partnerId: string) => {
    const lane = lanes.get(partnerId) ?? { sending: 0, line: [] };
    lanes.set(partnerId, lane);
    return lane;
  };

  const trySlot = (partnerId: string) => {
    const lane = laneOf(partnerId);
    if (lane.sending < deps.maxPerPartner) {
      lane.sending++;
      return grant(partnerId, lane);
    }
    return undefined;
  };

  const takeSlot: TakeSlot = (partnerId) => {
    const slot = trySlot(partnerId);
    if (slot) return Promise.resolve(slot);
    const lane = laneOf(partnerId);
    // Lines are short and waits brief: a job in a line is still in hand, active in the queue, and a line of
    // a receiver that hangs must not keep other partners' jobs out for long.
    if (stopped || lane.line.length >= servedInLineWait(partnerId) || waiting >= deps.maxInFlight) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      waiting++;
      const entry = (slot: (() => void) | undefined) => {
        clearTimeout(timer);
        waiting--;
        resolve(slot);
      };
      const timer = setTimeout(() => {
        lane.line.splice(lane.line.indexOf(entry), 1);
        entry(undefined);
      }, LINE_WAIT_MS);
      lane.line.push(entry);
    });
  };

  // The time a job of `partnerId` put back is due: the partner's next reservation, which moves on by one
  // slot's share of the mean hold (so `maxPerPartner` slots take the reserved jobs as they free).
  const reserve = (partnerId: string | undefined): Date => {
    const at = now();
    if (stopped || partnerId === undefined) return new Date(at);
    const pace = paceOf(partnerId);
    pace.paced = true;
    const spacing = (pace.meanHoldMs ?? deps.attemptTimeoutMs) / deps.maxPerPartner;
    pace.nextSlotAt = Math.min(Math.max(pace.nextSlotAt, at) + spacing, at + PUT_BACK_HORIZON_MS);
    return new Date(Math.max(pace.nextSlotAt, at + PUT_BACK_MIN_MS));
  };

  async function run(job: PumpJob): Promise<void> {
    // The partner whose slot the job asked for (a job that goes back is paced on it).
    let partnerId: string | undefined;
    const take: TakeSlot = (id) => {
      partnerId = id;
      return takeSlot(id);
    };
    try {
      const outcome = await deps.deliver(job.data, take, aborting.signal);
      if (outcome === 'done') {
        await complete(job.id).catch(report('webhook job not completed; it runs again when it expires, and finds its attempt recorded'));
      } else {
        await putBack({ job, startAfter: reserve(partnerId) }).catch(report('webhook job not put back; it runs again when it expires'));
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
    takeSlot,
    dispatchAllowance() {
      const at = now();
      const allowance = new Map<string, number>();
      for (const [partnerId, pace] of paces) {
        if (at - Math.max(pace.seenAt, pace.nextSlotAt) > PACE_FORGET_MS && !lanes.has(partnerId)) paces.delete(partnerId);
        else if (pace.paced) allowance.set(partnerId, pace.nextSlotAt > at ? 0 : servedInLineWait(partnerId));
      }
      return allowance;
    },
    async stop() {
      stopped = true;
      signal();
      await looping;
      // The jobs waiting in lines, and those whose requests are aborted, go back to the queue due now, for
      // another instance to take.
      for (const lane of lanes.values()) for (const entry of lane.line.splice(0)) entry(undefined);
      aborting.abort();
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
