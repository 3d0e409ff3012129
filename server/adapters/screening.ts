/**
 * Address screening (docs/screening.md): the denylist file first, then the screening provider at SCREENING_URL,
 * asked `POST {network, address, role}` and answering `{decision: "allow" | "deny" | "review", reason}`.
 *
 * The provider's answer is read as the price servers' are (market/sources.ts, boundary.ts): within
 * SCREENING_TIMEOUT_MS (the fetch signal covers the body too), at most MAX_SCREENING_ANSWER_BYTES, and
 * strictly (domain/screening.ts parseScreeningAnswer). Every failure (unreachable, timed out, an HTTP error,
 * an answer too large, not JSON, not an object, a decision it does not know) is the provider's failure, and
 * SCREENING_FAIL_MODE decides: `closed` (the default) answers `review`, so nothing moves until a person
 * looks; `open` answers `allow`. `screen` never throws. No database handle, no clock.
 */
import {
  isDenylisted,
  MalformedScreeningAnswerError,
  MAX_SCREENING_ANSWER_BYTES,
  parseScreeningAnswer,
  type Denylist,
  type ScreeningSubject,
  type ScreeningVerdict,
} from '../domain/screening.js';
import { AnswerTooLargeError, readBoundedText, redactUrls } from './boundary.js';

/** What screening does when the provider fails: `closed` holds (review), `open` lets the address through. */
export type ScreeningFailMode = 'closed' | 'open';

/** How screening is configured. */
export interface ScreeningOptions {
  /** The parsed SCREENING_DENYLIST_FILE; none: no denylist. */
  denylist?: Denylist;
  /** SCREENING_URL; none: no provider is asked. */
  url?: string;
  /** Time limit of one provider request, connect to last byte (SCREENING_TIMEOUT_MS). */
  timeoutMs: number;
  failMode: ScreeningFailMode;
  /** Injectable fetch (tests); the global fetch by default. */
  fetch?: typeof fetch;
}

/** Screens addresses. */
export interface Screening {
  /** False when neither a denylist nor a provider is configured: every address is allowed, nothing is recorded. */
  readonly enabled: boolean;
  /** The verdict on `subject`; never throws (a provider's failure is SCREENING_FAIL_MODE's verdict). */
  screen(subject: ScreeningSubject): Promise<ScreeningVerdict>;
}

const ALLOWED: ScreeningVerdict = Object.freeze({ decision: 'allow', reason: null, provider: 'none' });

/** Screening that allows everything (no SCREENING_DENYLIST_FILE, no SCREENING_URL). */
export const NO_SCREENING: Screening = Object.freeze({ enabled: false, screen: async () => ALLOWED });

/** Creates the screening of `options`. */
export function createScreening(options: ScreeningOptions): Screening {
  const { denylist, url, timeoutMs, failMode } = options;
  const doFetch = options.fetch ?? fetch;
  if (!denylist && !url) return NO_SCREENING;
  return {
    enabled: true,
    async screen(subject) {
      if (denylist && isDenylisted(denylist, subject.network, subject.address)) {
        return { decision: 'deny', reason: 'on the denylist (SCREENING_DENYLIST_FILE)', provider: 'denylist' };
      }
      if (!url) return { decision: 'allow', reason: null, provider: 'denylist' };
      try {
        const answer = await ask(doFetch, url, timeoutMs, subject);
        return { ...answer, provider: 'provider' };
      } catch (err) {
        const failure = describeFailure(err, timeoutMs);
        return {
          decision: failMode === 'closed' ? 'review' : 'allow',
          reason: `the screening provider ${failure} (SCREENING_FAIL_MODE=${failMode})`,
          provider: 'provider',
          failure,
        };
      }
    },
  };
}

async function ask(doFetch: typeof fetch, url: string, timeoutMs: number, subject: ScreeningSubject) {
  const response = await doFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'partner-swap-service (screening)' },
    body: JSON.stringify({ network: subject.network, address: subject.address, role: subject.role }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await readBoundedText(response, MAX_SCREENING_ANSWER_BYTES);
  if (!response.ok) throw new MalformedScreeningAnswerError(`answered HTTP ${response.status}`);
  return parseScreeningAnswer(text);
}

// What went wrong, in words an operator reads next to the swap (no URL: it may carry a credential).
function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof AnswerTooLargeError) return `answered more than ${MAX_SCREENING_ANSWER_BYTES} bytes`;
  if (err instanceof MalformedScreeningAnswerError) return err.message;
  const name = (err as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `did not answer within ${timeoutMs} ms`;
  const cause = (err as { cause?: { code?: string } }).cause?.code;
  return `is unreachable${cause ? ` (${cause})` : ` (${redactUrls(String((err as Error)?.message ?? err)).slice(0, 200)})`}`;
}
