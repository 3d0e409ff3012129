/**
 * One autocannon run whose every request is built afresh by a function (a new signature, nonce and timestamp,
 * or the next item of a pre-made pool), reduced to the figures of the table and an account of every answer
 * that was not the expected status.
 */
import autocannon from 'autocannon';

/** A request as it goes on the wire: path with its query, headers, body. */
export interface Outgoing {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** How long a run lasts: for a number of seconds, or until `amount` requests were answered (a pool of that size). */
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
  /** The first answer that was not `expect`: its status and the start of its body. */
  firstUnexpected?: string;
}

/** Runs autocannon against `origin` with `connections`, calling `next()` for every request it sends. */
export async function runLoad(options: {
  origin: string;
  connections: number;
  length: RunLength;
  expect: number;
  next: () => Outgoing;
}): Promise<LoadFigures> {
  let firstUnexpected: string | undefined;
  let firstSentAt = 0;
  let lastAnswerAt = 0;
  const request: autocannon.Request = {
    // Called once per request sent (autocannon rebuilds a request that has a setupRequest before each send).
    setupRequest(defaults) {
      firstSentAt ||= performance.now();
      const out = options.next();
      return { ...defaults, method: out.method, path: out.path, headers: out.headers, body: out.body };
    },
    onResponse(status, body) {
      lastAnswerAt = performance.now();
      if (status !== options.expect && firstUnexpected === undefined) firstUnexpected = `${status} ${body.slice(0, 300)}`;
    },
  };
  const length = 'amount' in options.length ? { amount: options.length.amount } : { duration: options.length.seconds };
  const connections = 'amount' in options.length ? Math.min(options.connections, options.length.amount) : options.connections;
  const result = await autocannon({ url: options.origin, connections, requests: [request], ...length });
  // autocannon notices the end of a run of `amount` requests only at its next sample tick (every second),
  // and its `duration` counts to that tick: 200 answers in 0.4 s or in 1.9 s both read as 2 s. The run's
  // length here is from the first request built to the last answer.
  const seconds = lastAnswerAt > firstSentAt && firstSentAt > 0 ? (lastAnswerAt - firstSentAt) / 1000 : result.duration;
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0;
  const answered = Object.values(statuses).reduce((sum, n) => sum + n, 0);
  const unexpected = answered - (statuses[String(options.expect)] ?? 0);
  return {
    // Answers over the run's wall time, not autocannon's per-second average (a run of a few seconds has few samples).
    requestsPerSecond: seconds > 0 ? answered / seconds : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    answered,
    statuses,
    errors: result.errors,
    failures: unexpected + result.errors,
    firstUnexpected,
  };
}

/** `statuses` as text, e.g. "200: 5321, 500: 2". */
export function statusText(statuses: Record<string, number>): string {
  return Object.entries(statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');
}
