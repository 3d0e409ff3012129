/**
 * One load run whose every request is built afresh by a function (a new signature, nonce and timestamp, or the
 * next item of a pre-made pool), reduced to the figures of the table and an account of every answer that was
 * not the expected status.
 *
 * The load is node:http itself: `connections` keep-alive sockets, each sending its next request as soon as
 * the last is answered. It reads an expected answer's body without decoding it. autocannon, which did this
 * before, turned every answer's body into a string: the server's 35 kB brotli `GET /openapi.json` then cost it
 * 427 µs an answer against the server's own 67-91 µs, so that row measured autocannon (2,350 req/s; 7,900-9,600
 * with this). For small answers this costs about 10 µs more per request than autocannon did (42 against 33 µs
 * at 10,600 req/s of `GET /assets`).
 */
import http from 'node:http';
import { percentile } from './server-process.js';

/** A request as it goes on the wire: path with its query, headers, body. */
export interface Outgoing {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * How long a run lasts: for a number of seconds, or until `amount` requests were sent and answered or failed
 * (a pool of that size).
 */
export type RunLength = { seconds: number } | { amount: number };

/** What one run measured. */
export interface LoadFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers received. */
  answered: number;
  /** Answers per status code. */
  statuses: Record<string, number>;
  /** Connection errors and timeouts. */
  errors: number;
  /** Answers that were not `expect`, plus errors: what makes the bench fail. */
  failures: number;
  /** The first answer that was not `expect`: its status and the start of its body; else the first error's message. */
  firstUnexpected?: string;
}

/** A request with no answer after this long is given up and counted as an error. */
const TIMEOUT_MS = 10_000;

/** Runs the load against `origin` with `connections`, calling `next()` for every request it sends. */
export async function runLoad(options: {
  origin: string;
  connections: number;
  length: RunLength;
  expect: number;
  next: () => Outgoing;
}): Promise<LoadFigures> {
  const { hostname, port } = new URL(options.origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const amount = 'amount' in options.length ? options.length.amount : Infinity;
  const until = 'seconds' in options.length ? performance.now() + options.length.seconds * 1000 : Infinity;
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let errors = 0;
  let firstUnexpected: string | undefined;
  let firstError: string | undefined;
  let sent = 0;
  let firstSentAt = 0;
  let lastAnswerAt = 0;

  // Resolves once, when the answer has been read to its end or the request failed (never rejects). A failure
  // partway through an answer is reported on both the request and the answer: it counts once.
  const exchange = (out: Outgoing) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      firstSentAt ||= started;
      let settled = false;
      const settle = (err?: Error) => {
        if (settled) return;
        settled = true;
        if (err) {
          errors++;
          firstError ??= err.message;
        }
        resolve();
      };
      const req = http.request({ agent, host: hostname, port, method: out.method, path: out.path, headers: out.headers }, (res) => {
        const status = res.statusCode ?? 0;
        const keep = status !== options.expect && firstUnexpected === undefined;
        const chunks: Buffer[] = [];
        if (keep) res.on('data', (chunk: Buffer) => chunks.push(chunk));
        else res.resume();
        res.on('error', settle);
        res.once('end', () => {
          if (settled) return;
          lastAnswerAt = performance.now();
          latencies.push(lastAnswerAt - started);
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (keep) firstUnexpected ??= `${status} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`;
          settle();
        });
      });
      req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`no answer in ${TIMEOUT_MS} ms`)));
      req.on('error', settle);
      req.end(out.body);
    });

  // One loop per connection: the next request goes when the last is answered, until the run's length is
  // reached. When one loop throws (building a request failed), the others stop too before the run rejects, so
  // no request of this run goes on under the next one.
  let stopped = false;
  const connection = async () => {
    try {
      while (!stopped && sent < amount && performance.now() < until) {
        sent++;
        await exchange(options.next());
      }
    } catch (err) {
      stopped = true;
      throw err;
    }
  };
  try {
    const loops = await Promise.allSettled(Array.from({ length: Math.min(options.connections, amount) }, connection));
    const failed = loops.find((loop): loop is PromiseRejectedResult => loop.status === 'rejected');
    if (failed) throw failed.reason;
  } finally {
    agent.destroy();
  }

  // The run's length is from the first request sent to the last answer.
  const seconds = (lastAnswerAt - firstSentAt) / 1000;
  const answered = latencies.length;
  const unexpected = answered - (statuses[String(options.expect)] ?? 0);
  return {
    requestsPerSecond: seconds > 0 ? answered / seconds : 0,
    p50Ms: answered ? tenths(percentile(latencies, 50)) : 0,
    p99Ms: answered ? tenths(percentile(latencies, 99)) : 0,
    answered,
    statuses,
    errors,
    failures: unexpected + errors,
    firstUnexpected: firstUnexpected ?? (firstError === undefined ? undefined : `no answer: ${firstError}`),
  };
}

/** `ms` to a tenth of a millisecond, as the table shows it. */
function tenths(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** `statuses` as text, e.g. "200: 5321, 500: 2". */
export function statusText(statuses: Record<string, number>): string {
  return Object.entries(statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');
}
