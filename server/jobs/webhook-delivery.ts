/**
 * Webhook delivery (docs/architecture.md#streams-and-webhooks, Standard Webhooks). Three parts:
 *
 * - the dispatcher claims outbox rows not dispatched yet and, in one transaction, queues the first delivery
 *   job of each row whose partner has its webhook on and marks the rows dispatched, so every committed row
 *   gets exactly one job chain, whatever crashes when;
 * - a delivery job sends one attempt of one message, records it, and (in the same transaction as the
 *   record) queues the next attempt on the WEBHOOK_RETRY_SECONDS schedule when this one failed; an attempt
 *   already recorded is never sent again, so a job that runs twice costs at most one extra request;
 * - `sendTest` sends a `webhook.test` message at once, for POST /partner/webhook/test, in one of the
 *   partner's sending slots like any delivery (none free soon: it sends nothing), so test sends cannot hold
 *   more connections to a receiver than the per-partner limit.
 *
 * No database transaction is open while a request is in flight (on the embedded database an open
 * transaction holds up every other connection).
 * Redirects are not followed; in every mode (unless WEBHOOK_ALLOW_PRIVATE_TARGETS) every address the URL's
 * host resolves to is checked when the connection is made, so DNS that changed since the URL was set cannot
 * point deliveries inward. What an attempt records, and so what a partner sees, is the status code, the
 * timing and an error of our own words: never the receiver's status text, headers or body (a partner must
 * not be able to read anything off a host by pointing its webhook at it).
 */
import { createHash, randomUUID } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { signWebhook, webhookBody } from '../domain/webhook-signing.js';
import {
  checkWebhookTarget,
  checkWebhookUrlForm,
  refusedAddress,
  urlHost,
  WebhookTargetError,
  type ResolveHost,
  type TargetPolicy,
} from '../domain/webhook-targets.js';
import type { Metrics } from '../metrics.js';
import { transaction } from '../store/after-commit.js';
import type { SecretBox } from '../store/secret-box.js';
import {
  claimUndispatched,
  createAttemptWriter,
  createDeliveryContextReader,
  createWebhookReader,
  insertAttempt,
  markDispatched,
  webhookSecretOwner,
  type AttemptRecord,
  type WebhookRecord,
} from '../store/webhooks.js';

/** The event type of a test delivery. */
export const WEBHOOK_TEST_TYPE = 'webhook.test';
/** Outbox rows one dispatcher transaction claims at most. */
export const DISPATCH_BATCH_SIZE = 500;
/** Longest error text kept per attempt. */
export const ATTEMPT_ERROR_MAX_CHARS = 500;
/** Sent as User-Agent on every delivery. */
export const WEBHOOK_USER_AGENT = 'PartnerSwapService-Webhooks/1';

/** One attempt of one outbox message: what a delivery job carries. */
export interface DeliveryJob {
  messageId: string;
  attempt: number;
}

/** Queues delivery jobs in the caller's transaction, each due at `startAfter` (now when absent). */
export type EnqueueDeliveries = (jobs: Array<DeliveryJob & { startAfter?: Date }>, trx: Knex.Transaction) => Promise<void>;

/** What one HTTP attempt came to. */
export interface AttemptOutcome {
  succeeded: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** What delivery needs. */
export interface WebhookDeliveryDeps {
  knex: Knex;
  config: Pick<
    Config,
    'webhookRetrySeconds' | 'webhookTimeoutSeconds' | 'webhookRequireHttps' | 'webhookAllowPrivateTargets' | 'webhookCanAllowPrivateTargets'
  >;
  secretBox: SecretBox;
  logger: Logger;
  now: () => Date;
  enqueue: EnqueueDeliveries;
  /** Name resolution used when setting a URL and when connecting (default dns.lookup); its answers are checked. */
  lookup?: LookupFunction;
  /** Counts every attempt by outcome (none: not counted). */
  metrics?: Pick<Metrics, 'countWebhookAttempt'>;
}

/**
 * Waits for one of `partnerId`'s sending slots: resolves with the function that frees it once the request is
 * over, or undefined when the job should go back to the queue for later instead (jobs/delivery-pump.ts).
 */
export type TakeSlot = (partnerId: string) => Promise<(() => void) | undefined>;

/** What a delivery job came to: its attempt made (or nothing to send), or put off because its partner's slots were taken. */
export type DeliverOutcome = 'done' | 'deferred';

/** The delivery machinery of one process. */
export interface WebhookDelivery {
  /**
   * Dispatches up to DISPATCH_BATCH_SIZE outbox rows, at most its number for each partner in `paced` (the
   * pump's dispatchAllowance); returns how many rows it claimed and how many jobs it queued.
   */
  dispatch(paced?: ReadonlyMap<string, number>): Promise<{ claimed: number; queued: number }>;
  /**
   * Runs one delivery job, sending only once `takeSlot` (none: no limit) gave it a slot of its partner's.
   * When `signal` aborts (the pump stops) the request is abandoned and nothing is recorded: 'deferred'.
   */
  deliver(job: DeliveryJob, takeSlot?: TakeSlot, signal?: AbortSignal): Promise<DeliverOutcome>;
  /** Throws WebhookTargetError when deliveries to `url` would be refused for its address (checked again at every connection). */
  checkTarget(url: URL): Promise<void>;
  /**
   * Sends a webhook.test message to the partner's webhook now, in a slot `takeSlot` (none: no limit) gives
   * it, and returns the recorded attempt; undefined when it has none on, 'busy' when no slot came free.
   */
  sendTest(partnerId: string, takeSlot?: TakeSlot): Promise<AttemptRecord | undefined | 'busy'>;
}

/** A job id derived from the message and attempt, so queuing the same attempt twice queues it once. */
export function deliveryJobId(job: DeliveryJob): string {
  return derivedJobId(`webhook-delivery:${job.messageId}:${job.attempt}`);
}

/** A job id derived from `label` (laid out as a version-5-style UUID: pg-boss job ids are uuids). */
export function derivedJobId(label: string): string {
  const hex = createHash('sha256').update(label).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Creates the delivery machinery over its dependencies. */
export function createWebhookDelivery(deps: WebhookDeliveryDeps): WebhookDelivery {
  const schedule = deps.config.webhookRetrySeconds;
  const timeoutMs = deps.config.webhookTimeoutSeconds * 1000;
  const lookup = deps.lookup ?? (dns.lookup as unknown as LookupFunction);
  const policy: TargetPolicy = {
    requireHttps: deps.config.webhookRequireHttps,
    allowPrivateTargets: deps.config.webhookAllowPrivateTargets,
    canAllowPrivateTargets: deps.config.webhookCanAllowPrivateTargets,
  };

  // Read and recorded in groups (store/group-commit.ts): what the deliveries of a batch need, test deliveries'
  // webhooks, and the attempts of test deliveries and of last attempts.
  const recordAttempt = createAttemptWriter(deps.knex);
  const readWebhook = createWebhookReader(deps.knex);
  const readDeliveryContext = createDeliveryContextReader(deps.knex);

  const secretOf = (webhook: WebhookRecord) => deps.secretBox.open(webhook.secretSealed, webhookSecretOwner(webhook.partnerId));

  async function attempt(
    webhook: WebhookRecord,
    messageId: string,
    body: string,
    signal?: AbortSignal,
  ): Promise<AttemptOutcome & { at: Date }> {
    const at = deps.now();
    let secret: string;
    try {
      secret = secretOf(webhook);
    } catch (err) {
      deps.logger.warn({ err, partnerId: webhook.partnerId }, 'webhook secret does not open under this SECRETS_KEY');
      return {
        at,
        succeeded: false,
        statusCode: null,
        error: 'The webhook secret cannot be read; rotate it with PUT /partner/webhook.',
        durationMs: 0,
      };
    }
    const outcome = await postWebhook(webhook.url, { ...signWebhook(secret, messageId, at, body) }, body, {
      timeoutMs,
      policy,
      lookup,
      signal,
    });
    return { ...outcome, at };
  }

  return {
    async dispatch(paced) {
      let queued = 0;
      const claimed = await transaction(deps.knex, async (trx) => {
        const rows = await claimUndispatched(trx, DISPATCH_BATCH_SIZE, paced);
        const jobs = rows.filter((row) => row.deliver).map((row) => ({ messageId: row.id, attempt: 1 }));
        if (jobs.length > 0) await deps.enqueue(jobs, trx);
        await markDispatched(
          trx,
          rows.map((row) => row.seq),
          deps.now(),
        );
        queued = jobs.length;
        return rows.length;
      });
      return { claimed, queued };
    },

    async deliver(job, takeSlot, signal) {
      const context = await readDeliveryContext(job.messageId, job.attempt);
      if (!context || context.recorded) return 'done';
      const { message, webhook } = context;
      // Deliveries were stopped (or never started): the message is dropped, nothing is sent.
      if (!webhook || !webhook.enabled) return 'done';
      // Built before a slot is taken: nothing between taking and freeing it may throw outside the try.
      const body = webhookBody(message.type, message.createdAt, message.payload);
      const release = takeSlot ? await takeSlot(message.partnerId) : () => undefined;
      if (!release) return 'deferred';
      let outcome: Awaited<ReturnType<typeof attempt>>;
      try {
        outcome = await attempt(webhook, message.id, body, signal);
      } finally {
        release();
      }
      // Abandoned at shutdown: not an attempt the partner should see; the job goes back, due at once.
      if (signal?.aborted && !outcome.succeeded) return 'deferred';
      deps.metrics?.countWebhookAttempt(outcome);
      const delaySeconds = outcome.succeeded ? undefined : schedule[job.attempt - 1];
      const nextAttemptAt = delaySeconds === undefined ? null : new Date(outcome.at.getTime() + delaySeconds * 1000);
      const record = attemptRecord(message.partnerId, message.id, message.type, job.attempt, webhook.url, outcome, nextAttemptAt);
      if (!nextAttemptAt) {
        await recordAttempt(record);
      } else {
        await transaction(deps.knex, async (trx) => {
          // Only the run that recorded this attempt queues the next one (a second run of the job finds it recorded).
          if (await insertAttempt(trx, record)) {
            await deps.enqueue([{ messageId: message.id, attempt: job.attempt + 1, startAfter: nextAttemptAt }], trx);
          }
        });
      }
      if (!outcome.succeeded) {
        deps.logger.info(
          { messageId: message.id, attempt: job.attempt, statusCode: outcome.statusCode, error: outcome.error, nextAttemptAt },
          nextAttemptAt ? 'webhook delivery failed; will retry' : 'webhook delivery failed; no retries left',
        );
      }
      return 'done';
    },

    async checkTarget(url) {
      await checkWebhookTarget(url, policy, resolveWith(lookup));
    },

    async sendTest(partnerId, takeSlot) {
      const webhook = await readWebhook(partnerId);
      if (!webhook || !webhook.enabled) return undefined;
      const messageId = randomUUID();
      const created = deps.now();
      const body = webhookBody(WEBHOOK_TEST_TYPE, created, {
        message: 'This is a test delivery from the Partner Swap Service. Verify its webhook-signature and answer 2xx.',
      });
      const release = takeSlot ? await takeSlot(partnerId) : () => undefined;
      if (!release) return 'busy';
      let outcome: Awaited<ReturnType<typeof attempt>>;
      try {
        outcome = await attempt(webhook, messageId, body);
      } finally {
        release();
      }
      deps.metrics?.countWebhookAttempt(outcome);
      const record = attemptRecord(partnerId, messageId, WEBHOOK_TEST_TYPE, 1, webhook.url, outcome, null);
      const stored = await recordAttempt(record);
      if (!stored) throw new Error(`test message ${messageId} was recorded twice`);
      return stored;
    },
  };
}

/** The record of one delivery attempt and its outcome. */
function attemptRecord(
  partnerId: string,
  messageId: string,
  type: string,
  attempt: number,
  url: string,
  outcome: AttemptOutcome & { at: Date },
  nextAttemptAt: Date | null,
): Omit<AttemptRecord, 'seq' | 'id'> {
  const { statusCode, error, durationMs, succeeded, at } = outcome;
  return { partnerId, messageId, type, attempt, url, statusCode, error, durationMs, succeeded, attemptedAt: at, nextAttemptAt };
}

/**
 * POSTs `body` to `url` once: no redirects followed, the whole exchange bounded by `timeoutMs`, and the
 * connection refused when the host is or resolves to an address `policy` refuses. Never throws. The outcome
 * carries the status code and timing; its error text is ours, never the receiver's words.
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; policy: TargetPolicy; lookup: LookupFunction; signal?: AbortSignal },
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: string, statusCode: number | null = null): AttemptOutcome => ({
    succeeded: false,
    statusCode,
    error: cleanError(error),
    durationMs: elapsed(),
  });

  let target: URL;
  try {
    target = checkWebhookUrlForm(url, options.policy.requireHttps);
    // An address in the URL is connected to without a lookup, so it is checked here.
    const refused = isIP(urlHost(target)) ? refusedAddress(urlHost(target), options.policy) : undefined;
    if (refused) throw refused;
  } catch (err) {
    return failed(err instanceof Error ? `refused: ${err.message}` : String(err));
  }

  const lookup: LookupFunction = options.policy.allowPrivateTargets ? options.lookup : checkedLookup(options.lookup, options.policy);
  const send = target.protocol === 'https:' ? https.request : http.request;
  const agent = target.protocol === 'https:' ? KEPT_HTTPS : KEPT_HTTP;
  // One limit for the whole exchange, the response body included (read after the status settled the attempt).
  const deadline = performance.now() + options.timeoutMs;
  const exchange = (kept: boolean): Promise<AttemptOutcome | 'stale'> =>
    new Promise((resolve) => {
      let settled = false;
      const settle = (outcome: AttemptOutcome | 'stale') => {
        if (settled) return;
        settled = true;
        resolve(outcome);
      };
      const req = send(target, {
        method: 'POST',
        agent: kept ? agent : false,
        lookup,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': WEBHOOK_USER_AGENT,
        },
      });
      const timer = setTimeout(
        () => {
          settle(failed(`timed out after ${options.timeoutMs / 1000} s without a response`));
          req.destroy();
        },
        Math.max(0, deadline - performance.now()),
      );
      // Stopping abandons the request (the pump puts its job back; the receiver may have read it).
      const abandon = () => {
        settle(failed('abandoned: the service is stopping'));
        req.destroy();
      };
      if (options.signal?.aborted) abandon();
      else options.signal?.addEventListener('abort', abandon, { once: true });
      req.on('close', () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', abandon);
      });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        // The body is not used; it is read (so the connection can serve the next delivery) until the time limit.
        res.resume();
        res.on('error', () => undefined);
        if (status >= 200 && status < 300) return settle({ succeeded: true, statusCode: status, error: null, durationMs: elapsed() });
        // Only the status: the receiver's reason phrase, Location and other headers are never shown to the partner.
        if (status >= 300 && status < 400) {
          return settle(failed(`answered ${status} (a redirect); redirects are not followed, set the final URL`, status));
        }
        settle(failed(`answered ${status}; only 2xx acknowledges a delivery`, status));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        // A kept connection the receiver closed while it was idle fails before any answer. The request then
        // most likely never reached the receiver, so it is sent again, once, on a connection of its own (what
        // Node's documentation advises; another kept one may have been closed as well). A receiver that read
        // the request before it reset the connection gets it twice, with the same webhook-id.
        if (kept && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) return settle('stale');
        settle(failed(describeNetworkError(err, target)));
      });
      req.end(body);
    });
  const first = await exchange(true);
  return first === 'stale' ? ((await exchange(false)) as AttemptOutcome) : first;
}

// Connections to receivers are kept between deliveries, one pool per host and port: a delivery then costs
// no connection set-up (and no TLS handshake). A connection is made only through the `lookup` of the delivery
// that needs it, so every connection goes to an address that was checked when it was made.
// An idle connection is closed after KEPT_CONNECTION_IDLE_MS, or sooner when the receiver's Keep-Alive
// header says it closes sooner (Node's agent honours the hint).
const KEPT_CONNECTION_IDLE_MS = 4_000;
const KEPT_HTTP = new http.Agent({ keepAlive: true, timeout: KEPT_CONNECTION_IDLE_MS });
const KEPT_HTTPS = new https.Agent({ keepAlive: true, timeout: KEPT_CONNECTION_IDLE_MS });

// `lookup`, refusing (with a WebhookTargetError) when any address of the name is one `policy` refuses.
// Called by net when the connection is made, so the address checked is the address connected to (a name
// that resolved to a public address when the URL was set and to an inward one now is refused now).
function checkedLookup(lookup: LookupFunction, policy: TargetPolicy): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    lookup(hostname, options, ((err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => {
      if (err) return callback(err);
      const entries = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
      for (const entry of entries) {
        const refused = refusedAddress(entry.address, policy, hostname);
        if (refused) return callback(new WebhookTargetError(`refused: ${refused.message}`));
      }
      callback(null, address, family);
    }) as never);
  }) as unknown as LookupFunction;
}

// Every address `lookup` gives a name, as checkWebhookTarget takes them.
function resolveWith(lookup: LookupFunction): ResolveHost {
  return (hostname) =>
    new Promise((resolve, reject) => {
      lookup(hostname, { all: true, verbatim: true }, ((err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) =>
        err ? reject(err) : resolve(addresses)) as never);
    });
}

// Our words for a failure before any answer: the error code, never a message that could quote the receiver
// (a TLS error names the certificate's subject, a parse error what the receiver sent).
function describeNetworkError(err: NodeJS.ErrnoException, url: URL): string {
  if (err instanceof WebhookTargetError) return err.message;
  const where = `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `connection refused by ${where}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host ${url.hostname} did not resolve (${err.code})`;
    case 'ECONNRESET':
      return `connection reset by ${where} before a response`;
    case 'ETIMEDOUT':
      return `connection to ${where} timed out`;
    default:
      if (url.protocol === 'https:' && /CERT|TLS|SSL|SELF_SIGNED|VERIFY/.test(err.code ?? '')) {
        return `TLS handshake with ${where} failed (${err.code}); the receiver needs a certificate valid for ${url.hostname}`;
      }
      return `failed before a response (${err.code ?? 'network error'})`;
  }
}

// Error text is shown to partners: one line, printable, bounded.
function cleanError(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const line = text.replace(/[\x00-\x1F\x7F]+/g, ' ').trim() || 'failed';
  return line.length > ATTEMPT_ERROR_MAX_CHARS ? `${line.slice(0, ATTEMPT_ERROR_MAX_CHARS - 1)}…` : line;
}
