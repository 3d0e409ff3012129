/**
 * `make bench`, webhooks: how many signed webhook deliveries per second one server instance makes to a local
 * receiver (aim: 1,000/s), and how long a committed change takes to reach it. The server runs in its own
 * process (embedded PGlite, or a fresh database on the PostgreSQL of DATABASE_URL); this process runs the receiver (answers 204 at
 * once) and produces the changes. Prints figures; asserts nothing about speed (the machine is shared).
 *
 *   1. creation burst: BENCH_WEBHOOK_SWAPS (default 600) + 50 swaps created 10 at a time; each deposit-address
 *      allocation writes one `swap.updated`. Deliveries/s while they are made: the steady state, bounded by
 *      how fast the swaps get their addresses.
 *   2. latency: the sandbox clock moves 200 waiting swaps to `overdue` (20 requests at a time); one message
 *      each. Commit-to-first-attempt = arrival at the receiver - the body's `timestamp` (when the outbox row
 *      was written by the database's clock, i.e. when its transaction began: a slight upper bound; a remote
 *      DATABASE_URL adds its clock skew), first arrival per webhook-id.
 *   3. backlog: the receiver holds every request without answering while the clock writes one message per
 *      remaining swap (`overdue`) and one per swap (`expired`), so they all wait, queued, behind the held
 *      attempts; then it answers the held ones and every later one at once. Deliveries/s = arrivals after the
 *      release / (last arrival - release): the delivery capacity, not the speed of producing changes.
 *   4. retry: the receiver is down (connection refused) while 50 swaps go `overdue`; it comes back before
 *      the retry (WEBHOOK_RETRY_SECONDS=5,10,30 here) and every message must arrive.
 * Finally the server's own record (GET /partner/webhook/deliveries) is compared with what arrived.
 *
 * BENCH_CPU_PROF=<dir> runs the server under `node --cpu-prof` and leaves the .cpuprofile in <dir>.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { percentile, startServerProcess } from './server-process.js';
import { PUMP_FETCH_MAX } from '../../server/jobs/delivery-pump.js';
import { freePort } from '../support/process.js';
import { swapClient } from '../support/swaps.js';

const SWAPS = Number(process.env.BENCH_WEBHOOK_SWAPS ?? 600);
const LATENCY_SWAPS = Math.min(200, SWAPS);
const RETRY_SWAPS = 50;
const CREATE_CONCURRENCY = 10;
const CLOCK_CONCURRENCY = 20;
const RETRY_SECONDS = [5, 10, 30];
const AIM_PER_SECOND = 1_000;
// The one bench partner may use the whole instance: this measures the instance's delivery capacity, not the
// per-partner limit (WEBHOOK_MAX_CONCURRENT_PER_PARTNER, 4 by default, which spreads it among partners).
const MAX_IN_FLIGHT = 128;
const root = path.resolve(import.meta.dirname, '../..');
const now = () => performance.timeOrigin + performance.now();
const out = (line: string) => process.stdout.write(`${line}\n`);

/** CPU seconds (user + system) the process `pid` has used so far (Linux /proc, 100 ticks per second). */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One request that reached the receiver. */
interface Arrival {
  webhookId: string;
  /** Wall-clock ms when the request's headers arrived. */
  at: number;
  /** The body's `timestamp` (when the outbox row was written), ms. */
  writtenAt: number;
  swapId: string;
  status: string;
  hasAddress: boolean;
}

type Mode = 'answer' | 'hold';

/** A local webhook receiver: answers 204 (or holds requests), records every arrival, first arrivals by webhook-id. */
class Receiver {
  mode: Mode = 'answer';
  readonly arrivals: Arrival[] = [];
  readonly first = new Map<string, Arrival>();
  readonly held: http.ServerResponse[] = [];
  badRequests = 0;
  private server = http.createServer((req, res) => this.handle(req, res));
  private waiters: Array<() => void> = [];

  constructor(readonly port: number) {
    this.server.keepAliveTimeout = 1_000;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async up(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    if ((this.server.address() as AddressInfo).port !== this.port) throw new Error('receiver came up on another port');
  }

  /** Stops listening and drops open connections: attempts now get "connection refused". */
  async down(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  /** Answers every held request and answers at once from now on. */
  release(): void {
    this.mode = 'answer';
    for (const res of this.held.splice(0)) res.writeHead(204).end();
  }

  /** Resolves once `done()` holds (checked on every arrival), or rejects after `timeoutMs`. */
  async until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const at = now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const webhookId = String(req.headers['webhook-id'] ?? '');
      let body: { timestamp?: string; data?: { order?: { id?: string; status?: string; depositAddress?: string | null } } } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // counted below
      }
      if (!webhookId || !body.timestamp || !req.headers['webhook-signature'] || !req.headers['webhook-timestamp']) this.badRequests++;
      const arrival: Arrival = {
        webhookId,
        at,
        writtenAt: Date.parse(body.timestamp ?? ''),
        swapId: body.data?.order?.id ?? '',
        status: body.data?.order?.status ?? '',
        hasAddress: !!body.data?.order?.depositAddress,
      };
      this.arrivals.push(arrival);
      if (!this.first.has(webhookId)) this.first.set(webhookId, arrival);
      if (this.mode === 'hold') this.held.push(res);
      else res.writeHead(204).end();
      for (const wake of this.waiters.splice(0)) wake();
    });
  }
}

/** Runs `work` over `items`, `concurrency` at a time. */
async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

/** First arrivals of the messages `match` picks (at most one per swap and status). */
function firstArrivals(receiver: Receiver, match: (a: Arrival) => boolean): Arrival[] {
  return [...receiver.first.values()].filter(match);
}

const ms = (values: number[]) =>
  values.length === 0
    ? 'n/a'
    : `p50 ${percentile(values, 50).toFixed(0)} ms, p99 ${percentile(values, 99).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms`;
const rate = (count: number, fromMs: number, toMs: number) => (toMs > fromMs ? (count * 1000) / (toMs - fromMs) : NaN);
const vsAim = (perSecond: number) =>
  `${perSecond.toFixed(0)}/s (${((perSecond / AIM_PER_SECOND) * 100).toFixed(0)}% of the aim of ${AIM_PER_SECOND}/s)`;

async function main(): Promise<void> {
  const cpuProfileDir = process.env.BENCH_CPU_PROF;
  const server = await startServerProcess(root, {
    // Long enough that a held request (phase 3) does not time out; retries soon enough to wait for (phase 4).
    // The receiver listens on this machine (WEBHOOK_ALLOW_PRIVATE_TARGETS).
    env: {
      WEBHOOK_RETRY_SECONDS: RETRY_SECONDS.join(','),
      WEBHOOK_TIMEOUT_SECONDS: '300',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT),
      WEBHOOK_MAX_CONCURRENT_PER_PARTNER: String(MAX_IN_FLIGHT),
    },
    nodeArgs: cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(cpuProfileDir)] : [],
  });
  const receiver = new Receiver(await freePort());
  const report: string[] = [];
  try {
    await receiver.up();
    const client = swapClient(server.origin, server.signer);
    const set = await client.send('PUT', '/api/v1/partner/webhook', { url: receiver.url });
    if (set.status !== 200) throw new Error(`PUT /partner/webhook answered ${set.status}: ${set.text}`);
    const clock = async (id: string, deadline: 'deposit' | 'expiry') => {
      const res = await client.send('POST', `/api/v1/sandbox/swaps/${id}/clock`, { deadline });
      if (res.status !== 200) throw new Error(`clock ${deadline} on ${id} answered ${res.status}: ${res.text}`);
    };

    // 1. Creation burst.
    const total = SWAPS + RETRY_SWAPS;
    const ids: string[] = [];
    const createStarted = now();
    await pool(
      Array.from({ length: total }, (_, i) => i),
      CREATE_CONCURRENCY,
      async () => {
        ids.push((await client.create()).order.id);
      },
    );
    const createSeconds = (now() - createStarted) / 1000;
    const created = new Set(ids);
    const isAllocation = (a: Arrival) => created.has(a.swapId) && a.status === 'waiting' && a.hasAddress;
    await receiver.until(() => firstArrivals(receiver, isAllocation).length >= total, 180_000, 'the address allocations of phase 1');
    const burst = firstArrivals(receiver, isAllocation);
    const burstArrivals = burst.map((a) => a.at);
    const burstWritten = burst.map((a) => a.writtenAt);
    report.push(
      `1. creation burst: ${total} swaps created ${CREATE_CONCURRENCY} at a time in ${createSeconds.toFixed(1)} s (${(total / createSeconds).toFixed(0)}/s); one message per address allocation`,
      `   messages written:   ${burst.length} at ${rate(burst.length, Math.min(...burstWritten), Math.max(...burstWritten)).toFixed(0)}/s (first to last outbox timestamp)`,
      `   deliveries:         ${burst.length} at ${rate(burst.length, Math.min(...burstArrivals), Math.max(...burstArrivals)).toFixed(0)}/s (first to last arrival; bounded by the allocation rate above)`,
      `   commit-to-first-attempt: ${ms(burst.map((a) => a.at - a.writtenAt))}`,
    );

    // 2. Latency: moderate rate, receiver answering.
    const latencyIds = ids.slice(0, LATENCY_SWAPS);
    const latencySet = new Set(latencyIds);
    const isLatency = (a: Arrival) => latencySet.has(a.swapId) && a.status === 'overdue';
    const latencyStarted = now();
    await pool(latencyIds, CLOCK_CONCURRENCY, (id) => clock(id, 'deposit'));
    const latencyCallsSeconds = (now() - latencyStarted) / 1000;
    await receiver.until(() => firstArrivals(receiver, isLatency).length >= latencyIds.length, 60_000, 'the overdue messages of phase 2');
    const latency = firstArrivals(receiver, isLatency);
    report.push(
      `2. latency: ${latencyIds.length} swaps moved to overdue by the sandbox clock, ${CLOCK_CONCURRENCY} at a time (${(latencyIds.length / latencyCallsSeconds).toFixed(0)} messages/s written)`,
      `   delivered:          ${latency.length} of ${latencyIds.length}`,
      `   commit-to-first-attempt: ${ms(latency.map((a) => a.at - a.writtenAt))}`,
    );

    // 3. Backlog: the receiver holds requests while the messages are written, then answers everything.
    const backlogOverdue = ids.slice(LATENCY_SWAPS, SWAPS);
    const backlogExpired = ids.slice(0, SWAPS);
    const overdueSet = new Set(backlogOverdue);
    const expiredSet = new Set(backlogExpired);
    const isBacklog = (a: Arrival) =>
      (overdueSet.has(a.swapId) && a.status === 'overdue') || (expiredSet.has(a.swapId) && a.status === 'expired');
    const expectedBacklog = backlogOverdue.length + backlogExpired.length;
    receiver.mode = 'hold';
    const holdStarted = now();
    await pool(backlogOverdue, CLOCK_CONCURRENCY, (id) => clock(id, 'deposit'));
    await pool(backlogExpired, CLOCK_CONCURRENCY, (id) => clock(id, 'expiry'));
    const writeSeconds = (now() - holdStarted) / 1000;
    // Let the dispatcher queue the last rows and the workers take what they can, then wait for the held count to settle.
    let heldBefore = -1;
    while (heldBefore !== receiver.held.length) {
      heldBefore = receiver.held.length;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    const heldAtRelease = receiver.held.length;
    const pid = server.child.process.pid!;
    const cpuAtRelease = cpuSeconds(pid);
    const releasedAt = now();
    receiver.release();
    await receiver.until(() => firstArrivals(receiver, isBacklog).length >= expectedBacklog, 180_000, 'the backlog of phase 3');
    const drainCpuShare = (cpuSeconds(pid) - cpuAtRelease) / ((now() - releasedAt) / 1000);
    const backlog = firstArrivals(receiver, isBacklog);
    const afterRelease = backlog.filter((a) => a.at >= releasedAt);
    const lastArrival = Math.max(...backlog.map((a) => a.at));
    const capacity = rate(afterRelease.length, releasedAt, lastArrival);
    report.push(
      `3. backlog: ${expectedBacklog} messages written in ${writeSeconds.toFixed(1)} s while the receiver held every request unanswered`,
      `   in flight while held: ${heldAtRelease} attempts (the rest waited in the queue)`,
      `   after the release:  ${afterRelease.length} more arrived in ${((lastArrival - releasedAt) / 1000).toFixed(2)} s: ${vsAim(capacity)}`,
      `   delivered:          ${backlog.length} of ${expectedBacklog}`,
      `   server CPU while draining: ${(drainCpuShare * 100).toFixed(0)}% of one core; ` +
        `delivery pump: up to ${MAX_IN_FLIGHT} requests in flight (WEBHOOK_MAX_IN_FLIGHT, the partner's limit as high), ` +
        `taken up to ${PUMP_FETCH_MAX} jobs per fetch as requests end`,
    );

    // 4. Retry: receiver down while messages are written; back before the first retry.
    const retryIds = ids.slice(SWAPS);
    const retrySet = new Set(retryIds);
    const isRetry = (a: Arrival) => retrySet.has(a.swapId) && a.status === 'overdue';
    await receiver.down();
    const downAt = now();
    await pool(retryIds, CLOCK_CONCURRENCY, (id) => clock(id, 'deposit'));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, downAt + 2_500 - now())));
    await receiver.up();
    await receiver.until(() => firstArrivals(receiver, isRetry).length >= retryIds.length, 60_000, 'the retried messages of phase 4');
    const retried = firstArrivals(receiver, isRetry);
    const onRetry = retried.filter((a) => a.at - a.writtenAt >= RETRY_SECONDS[0] * 1000);
    report.push(
      `4. retry: ${retryIds.length} messages written while the receiver was down (connection refused), up again after 2.5 s`,
      `   delivered:          ${retried.length} of ${retryIds.length} (${onRetry.length} on a retry, ${retried.length - onRetry.length} first attempts after it came back)`,
      `   written-to-delivered: ${ms(retried.map((a) => a.at - a.writtenAt))} (retry delay ${RETRY_SECONDS[0]} s)`,
    );

    // The server's record against what arrived.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const attempts = { succeeded: 0, failed: 0, byMessage: new Map<string, number>() };
    let cursor: string | null = null;
    do {
      const query: string = `/api/v1/partner/webhook/deliveries?limit=100${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await client.send<{ deliveries: Array<{ eventId: string; succeeded: boolean }>; nextCursor: string | null }>(
        'GET',
        query,
      );
      if (page.status !== 200) throw new Error(`GET ${query} answered ${page.status}: ${page.text}`);
      for (const d of page.body.deliveries) {
        if (d.succeeded) attempts.succeeded++;
        else attempts.failed++;
        if (d.succeeded) attempts.byMessage.set(d.eventId, (attempts.byMessage.get(d.eventId) ?? 0) + 1);
      }
      cursor = page.body.nextCursor;
    } while (cursor);
    const expectedMessages = total + latencyIds.length + expectedBacklog + retryIds.length;
    const succeededMoreThanOnce = [...attempts.byMessage.values()].filter((n) => n > 1).length;
    const receivedTwice = receiver.arrivals.length - receiver.first.size;
    const notRecorded = [...receiver.first.keys()].filter((id) => !attempts.byMessage.has(id)).length;

    const logLines = server.child
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    out(
      `Webhooks: server in its own process (${server.database}), local receiver answering 204 at once (aim: ${AIM_PER_SECOND} deliveries/s)`,
    );
    for (const line of report) out(`  ${line}`);
    out(
      `  totals: ${expectedMessages} messages expected, ${receiver.first.size} distinct webhook-ids received` +
        ` (${receivedTwice} repeat arrivals, ${receiver.badRequests} malformed)`,
    );
    out(
      `  server record: ${attempts.succeeded} successful + ${attempts.failed} failed attempts; ` +
        `${succeededMoreThanOnce} messages succeeded more than once; ${notRecorded} received messages without a successful record`,
    );
    out(`  server log lines at warn or above: ${logLines.length}`);
    for (const line of logLines.slice(0, 5)) out(`    ${line.slice(0, 300)}`);
  } catch (err) {
    process.stderr.write(`partial report:\n${report.join('\n')}\nserver output:\n${server.child.output().slice(-5000)}\n`);
    throw err;
  } finally {
    receiver.release();
    await receiver.down().catch(() => undefined);
    await server.stop();
    if (cpuProfileDir) out(`  CPU profile of the server written to ${path.resolve(cpuProfileDir)}`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
