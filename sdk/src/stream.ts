/**
 * swaps.stream: GET /swaps/{id}/stream (Server-Sent Events, parsed by eventsource-parser) as an async iterator
 * of typed events. It reconnects after a dropped connection with Last-Event-ID (also after the server ends a
 * stream at its maximum lifetime, which it announces with `event: reconnect`), waits Retry-After when refused
 * with 429, never yields an event twice, and ends after the terminal status entry and the final `order` the
 * server sends after it (with the payout's `settlementTxHash` and `actualOutputAmount`), or when the server
 * closes the stream after the terminal entry. A connection that drops after the terminal entry ends the
 * iteration normally: the order is then one GET /swaps/{id} away.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Client } from 'openapi-fetch';
import type { paths } from './generated/api.js';
import { PartnerApiError } from './errors.js';
import { isRetryable } from './retry.js';
import type { Swap, SwapEvent } from './schemas.js';
import type { Transport } from './transport.js';

/** The reconnection delay used until the server sends its `retry:` field (the spec's is 3000). */
export const DEFAULT_STREAM_RETRY_MS = 3_000;
/** Default of StreamOptions.maxReconnects. */
export const DEFAULT_STREAM_MAX_RECONNECTS = 5;

/** One event of swaps.stream: the order as it is now, or one new entry of its timeline. */
export type SwapStreamEvent = { type: 'order'; order: Swap } | { type: 'status'; event: SwapEvent };

/** Options of swaps.stream. */
export interface StreamOptions {
  /** Milliseconds to wait before reconnecting (default: the server's `retry:` value, 3000 until it sends one). */
  reconnectDelayMs?: number;
  /**
   * Reconnects tried in a row without receiving anything new before the iterator throws (default 5; 0: none).
   * A stream the server ends at its maximum lifetime (announced by `event: reconnect`) is resumed without
   * counting against it; a connection that simply ends early counts as a failed one.
   */
  maxReconnects?: number;
  /** Resume after this status event id (sent as Last-Event-ID), e.g. StreamDisconnectedError.lastEventId. */
  lastEventId?: string;
}

/** swaps.stream gave up: the connection kept failing for maxReconnects reconnects in a row. Thrown. */
export class StreamDisconnectedError extends Error {
  /** Always `stream_disconnected`, so `error.code` reads the same on every SDK error. */
  readonly code = 'stream_disconnected';
  /** Connections that failed in a row (the first one and maxReconnects reconnects). */
  readonly attempts: number;
  /** The id of the last status event yielded: pass it as `lastEventId` to resume later without duplicates. */
  readonly lastEventId?: string;

  constructor(message: string, init: { attempts: number; lastEventId?: string; cause: unknown }) {
    super(message, { cause: init.cause });
    this.name = 'StreamDisconnectedError';
    this.attempts = init.attempts;
    this.lastEventId = init.lastEventId;
  }
}

/**
 * One attempt to open the stream: the response, with its body when it is 2xx and its parsed body (the Error,
 * whatever shape a proxy gave it) otherwise. It resolves for any status and rejects only when no answer came.
 */
export type OpenStream = (request: { lastEventId?: string; signal: AbortSignal }) => Promise<{
  response: Response;
  body?: ReadableStream<Uint8Array> | null;
  error?: unknown;
}>;

/** What a swap stream runs on: how to open one connection, and how to wait between them. */
export interface FollowDeps {
  /** Opens one connection (the first, and each resume with its Last-Event-ID). */
  open: OpenStream;
  /** Waits between reconnects. */
  sleep: (ms: number) => Promise<void>;
}

/** What swaps.stream runs on. */
export interface StreamDeps {
  /** The openapi-fetch client (its path typing; the request goes through `transport`). */
  raw: Client<paths>;
  /** The unsigned transport: the access token alone authenticates the stream. */
  transport: Transport;
  /** Waits between reconnects. */
  sleep: (ms: number) => Promise<void>;
}

/** Opens the stream of swap `id` with its access token; misuse throws here, before any request. */
export function streamSwap(
  { raw, transport, sleep }: StreamDeps,
  id: string,
  accessToken: string,
  options: StreamOptions = {},
): AsyncGenerator<SwapStreamEvent, void, undefined> {
  checkStreamArguments('swaps.stream', id, accessToken);
  const open: OpenStream = async ({ lastEventId, signal }) => {
    const { data, error, response } = await raw.GET('/swaps/{id}/stream', {
      params: { path: { id }, header: lastEventId === undefined ? undefined : { 'Last-Event-ID': lastEventId } },
      headers: { authorization: `Bearer ${accessToken}`, accept: 'text/event-stream' },
      parseAs: 'stream',
      signal,
      fetch: transport,
    });
    return { response, body: data as ReadableStream<Uint8Array> | undefined, error };
  };
  return followSwapStream({ open, sleep }, id, checkStreamOptions('swaps.stream', options));
}

/** Throws a TypeError naming `caller` unless `id` and `accessToken` are non-empty strings. */
export function checkStreamArguments(caller: string, id: unknown, accessToken: unknown): void {
  if (typeof id !== 'string' || id.length === 0) throw new TypeError(`${caller}: id must be a non-empty string`);
  if (typeof accessToken !== 'string' || accessToken.length === 0) throw new TypeError(`${caller}: accessToken must be a non-empty string`);
}

/** StreamOptions with their defaults, checked; throws a TypeError naming `caller` on misuse. */
export function checkStreamOptions(caller: string, options: StreamOptions): ResolvedStreamOptions {
  const { reconnectDelayMs, maxReconnects = DEFAULT_STREAM_MAX_RECONNECTS, lastEventId } = options;
  if (reconnectDelayMs !== undefined && !(reconnectDelayMs >= 0)) throw new TypeError(`${caller}: reconnectDelayMs must be a number >= 0`);
  if (!Number.isInteger(maxReconnects) || maxReconnects < 0) throw new TypeError(`${caller}: maxReconnects must be an integer >= 0`);
  if (lastEventId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(lastEventId))
    throw new TypeError(`${caller}: lastEventId must be a status event id (1-64 of A-Z a-z 0-9 _ -)`);
  return { reconnectDelayMs, maxReconnects, lastEventId };
}

/** StreamOptions after checkStreamOptions: maxReconnects has its default. */
export type ResolvedStreamOptions = { reconnectDelayMs?: number; maxReconnects: number; lastEventId?: string };

// A connection that opened (its body), or failed in a way worth reconnecting after.
type Connection = { body: ReadableStream<Uint8Array> } | { failure: unknown; retryAfterMs?: number };

/**
 * Follows swap `id` over the connections `open` makes: the core both the partner client's swaps.stream and
 * the browser's createSwapViewer run (the browser's without the signing transport).
 */
export async function* followSwapStream(
  { open, sleep }: FollowDeps,
  id: string,
  options: ResolvedStreamOptions,
): AsyncGenerator<SwapStreamEvent, void, undefined> {
  const controller = new AbortController();
  const seen = new Set<string>();
  let lastEventId = options.lastEventId;
  let lastOrder: string | undefined;
  let serverRetryMs = DEFAULT_STREAM_RETRY_MS;
  let failures = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  // The terminal status entry was yielded: what follows on this connection (the final order) is read to its end.
  let terminal = false;

  const connect = async (): Promise<Connection> => {
    try {
      const { response, body, error } = await open({ lastEventId, signal: controller.signal });
      if (response.ok) return body ? { body } : { failure: new Error('the stream answered without a body') };
      const refusal = PartnerApiError.from(response, error);
      // A refusal (401 invalid_token, 404, 400) will not change by reconnecting; 429 and 502-504 may.
      if (!isRetryable({ method: 'GET', idempotent: false, status: response.status })) throw refusal;
      return { failure: refusal, retryAfterMs: refusal.retryAfter === undefined ? undefined : refusal.retryAfter * 1000 };
    } catch (err) {
      if (err instanceof PartnerApiError) throw err;
      return { failure: err };
    }
  };

  try {
    for (;;) {
      const connection = await connect();
      let failure: unknown;
      let retryAfterMs: number | undefined;
      let progressed = false;
      // The server said it is ending this stream at its maximum lifetime (`event: reconnect`). That is no
      // failure: resume with Last-Event-ID, however often it happens. A body that just ends without it (a
      // proxy, a server that opens and closes) is a failed connection, so maxReconnects still applies.
      let endedByServer = false;
      if ('body' in connection) {
        reader = connection.body.getReader();
        const decoder = new TextDecoder();
        const messages: EventSourceMessage[] = [];
        const parser = createParser({ onEvent: (message) => messages.push(message), onRetry: (ms) => (serverRetryMs = ms) });
        for (;;) {
          let chunk: Awaited<ReturnType<typeof reader.read>>;
          try {
            chunk = await reader.read();
          } catch (err) {
            if (terminal) return;
            failure = err;
            break;
          }
          if (chunk.done) {
            if (terminal) return;
            failure = new Error('the stream ended before the terminal status event');
            break;
          }
          parser.feed(decoder.decode(chunk.value, { stream: true }));
          for (const message of messages.splice(0)) {
            if (message.event === 'reconnect') endedByServer = true;
            const event = toEvent(message);
            // After the terminal entry only the final order may follow: it is yielded, and anything else ends it.
            if (terminal && event?.type !== 'order') return;
            // An event type this SDK does not know (the API may add some within v1) is skipped.
            if (!event) continue;
            if (event.type === 'status') {
              // The server replays only entries after Last-Event-ID; the set guards against a replay anyway.
              if (seen.has(event.event.id)) continue;
              seen.add(event.event.id);
              lastEventId = event.event.id;
            } else {
              // Every connection starts with the order as it is; repeat it only when it changed.
              if (message.data === lastOrder) continue;
              lastOrder = message.data;
            }
            progressed = true;
            yield event;
            if (terminal) return;
            if (event.type === 'status' && event.event.terminal) terminal = true;
          }
        }
        await reader.cancel().catch(() => undefined);
      } else {
        ({ failure, retryAfterMs } = connection);
      }

      // A connection that brought something new counts as the first failure of a new run.
      failures = endedByServer ? 0 : progressed ? 1 : failures + 1;
      if (failures > options.maxReconnects) {
        throw new StreamDisconnectedError(
          `The stream of swap ${id} failed ${failures} times in a row (${describe(failure)}); resume later with lastEventId or read GET /swaps/{id}.`,
          { attempts: failures, lastEventId, cause: failure },
        );
      }
      await sleep(Math.max(options.reconnectDelayMs ?? serverRetryMs, retryAfterMs ?? 0));
    }
  } finally {
    // return() (a break in for await) lands here: drop the connection.
    controller.abort();
    await reader?.cancel().catch(() => undefined);
  }
}

// The typed event of a message, or undefined for an event type this SDK does not know.
function toEvent(message: EventSourceMessage): SwapStreamEvent | undefined {
  if (message.event === 'order') return { type: 'order', order: JSON.parse(message.data) as Swap };
  if (message.event === 'status') return { type: 'status', event: JSON.parse(message.data) as SwapEvent };
  return undefined;
}

function describe(failure: unknown): string {
  if (failure instanceof Error) return failure.cause instanceof Error ? `${failure.message}: ${failure.cause.message}` : failure.message;
  return String(failure);
}
