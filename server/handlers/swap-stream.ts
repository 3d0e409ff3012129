/**
 * GET /swaps/{id}/stream (docs/architecture.md#streams-and-webhooks): Server-Sent Events for one swap, read with its access token.
 * On connect: `retry: 3000`, `event: order` with the Swap, then every timeline entry as `event: status` with
 * `id: <SwapEvent.id>` (only those after `Last-Event-ID` when the client resumes). Then `event: order` on
 * every order change and `event: status` for each new entry, a comment heartbeat, and the end of the stream
 * after the terminal entry. Changes arrive through the instance's hub; the stream reads them from the
 * database, so a resumed or late client sees every entry exactly once.
 *
 * Streams are bounded (docs/architecture.md#errors-limits-and-health): this instance holds at most so many at once per access token, client IP,
 * partner and in all (429 `too_many_streams` before the stream starts), and ends each one after its maximum
 * lifetime with `event: reconnect` (`{"reason":"lifetime"}`), when the client resumes with Last-Event-ID.
 */
import type { Response } from 'express';
import { AppError } from '../domain/errors.js';
import { unauthorized } from '../domain/signing.js';
import { createStreamLimiter, type StreamLimitScope } from '../domain/stream-limits.js';
import { isTerminal, toSwapBody, toSwapEventBody } from '../domain/swap-view.js';
import type { Handlers } from '../http/handler-types.js';
import { findSwap, findSwapEventSeq } from '../store/swaps.js';
import type { HandlerDeps } from './deps.js';

/** The reconnection delay the stream asks clients for. */
export const STREAM_RETRY_MS = 3_000;

/**
 * Retry-After of a stream refused by a limit: places free only when streams end, which nothing predicts; a
 * few seconds lets a client whose old connection is still being torn down get its place back soon.
 */
export const STREAM_REFUSED_RETRY_AFTER_SECONDS = 5;

/**
 * Sent last when a stream ends at its maximum lifetime: the swap is not terminal, resume with Last-Event-ID.
 * It tells a planned end from a dropped connection, so clients count only the latter against their reconnect
 * limit (a proxy that cuts streams early then still makes them give up). No `id:`, so Last-Event-ID stays.
 */
export const STREAM_LIFETIME_EVENT = 'event: reconnect\ndata: {"reason":"lifetime"}\n\n';

/** Streams end between this fraction of their maximum lifetime and all of it, so streams opened together do not all reconnect together. */
export const STREAM_LIFETIME_JITTER = 0.1;

/** Handler for streamSwap. */
export function createSwapStreamHandlers(deps: HandlerDeps): Pick<Handlers, 'streamSwap'> {
  const limits = deps.config.streamLimits;
  const limiter = createStreamLimiter({
    token: limits.maxPerToken,
    ip: limits.maxPerIp,
    partner: limits.maxPerPartner,
    instance: limits.maxPerInstance,
  });
  return {
    async streamSwap({ path, req, res, log }) {
      // A client may leave while the first reads run: notice it now, so nothing is subscribed for it later.
      let gone = false;
      req.once('close', () => (gone = true));
      // Everything that can refuse the request does so before the stream starts, as a JSON Error body.
      if (!req.bearerToken || !deps.swapTokens.matches(path.id, req.bearerToken)) {
        throw unauthorized('invalid_token', 'This access token does not grant access to this swap.');
      }
      // A token is derived from its swap's id, so a matching token names a swap that exists.
      const initial = await findSwap(deps.knex, path.id);
      if (!initial) throw unauthorized('invalid_token', 'This access token does not grant access to this swap.');
      const lastEventId = req.get('last-event-id');
      let lastSeq = lastEventId ? await findSwapEventSeq(deps.knex, path.id, lastEventId) : undefined;
      let lastOrder: string | undefined;
      let closed = false;

      const write = (text: string) => {
        if (!closed) res.write(text);
      };
      const end = () => {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        clearTimeout(lifetime);
        unsubscribe();
        stopOnHubClose();
        releasePlace();
        res.end();
      };
      // Reads what changed since the last write and sends it; runs one at a time (chained).
      let connected = false;
      const flush = async () => {
        if (closed) return;
        const { swap, events } = await deps.hub.snapshot(path.id);
        if (!swap) return end();
        const order = JSON.stringify(toSwapBody(swap));
        const sendOrder = () => {
          if (order === lastOrder) return;
          write(`event: order\ndata: ${order}\n\n`);
          lastOrder = order;
        };
        // The snapshot opens the stream; afterwards each change's entries come first and the order they
        // produced follows, so the terminal entry is followed by the final order, as the spec describes.
        if (!connected) sendOrder();
        connected = true;
        for (const event of events) {
          if (lastSeq !== undefined && BigInt(event.seq) <= BigInt(lastSeq)) continue;
          write(`id: ${event.id}\nevent: status\ndata: ${JSON.stringify(toSwapEventBody(event))}\n\n`);
          lastSeq = event.seq;
        }
        sendOrder();
        if (isTerminal(swap.status)) end();
      };
      let queue = Promise.resolve();
      const schedule = () => {
        queue = queue.then(flush).catch((err: unknown) => {
          log.warn({ err, swapId: path.id }, 'swap stream could not read the swap; closing it so the client resumes');
          end();
        });
      };

      if (gone || req.destroyed) return { handled: true };
      // Admission and the start of the stream run without a pause between them, so no concurrent request
      // can take the place counted here; the client IP is the one rate limits use (req.ip, TRUST_PROXY).
      const admission = limiter.admit({ token: path.id, ip: req.ip ?? req.socket.remoteAddress ?? 'unknown', partner: initial.partnerId });
      if (!admission.admitted) throw tooManyStreams(admission.scope, admission.limit);
      const releasePlace = admission.release;
      // Subscribe before the first read, so a change committed in between is not missed.
      const unsubscribe = deps.hub.subscribe(path.id, schedule);
      const stopOnHubClose = deps.hub.onClose(end);
      startStream(res);
      write(`retry: ${STREAM_RETRY_MS}\n\n`);
      const heartbeat = setInterval(() => write(': heartbeat\n\n'), deps.config.streamHeartbeatSeconds * 1000);
      // The end of its lifetime waits for the flush in progress, so the client resumes after the last entry sent.
      const lifetimeMs = limits.maxLifetimeSeconds * 1000 * (1 - STREAM_LIFETIME_JITTER * Math.random());
      const lifetime = setTimeout(() => {
        queue = queue.then(() => {
          write(STREAM_LIFETIME_EVENT);
          end();
        });
      }, lifetimeMs);
      req.on('close', end);
      schedule();
      return { handled: true };
    },
  };
}

const SCOPE_WORDING: Record<StreamLimitScope, string> = {
  token: 'open streams of this access token',
  ip: 'open streams from this client IP address',
  partner: "open streams of this swap's partner",
  instance: 'open streams on this server instance',
};

// 429 before any stream starts, naming the limit that was reached.
function tooManyStreams(scope: StreamLimitScope, limit: number): AppError {
  return new AppError(
    429,
    'too_many_streams',
    `Too many concurrent streams: the limit is ${limit} ${SCOPE_WORDING[scope]}. Close a stream you no longer read, or retry after ${STREAM_REFUSED_RETRY_AFTER_SECONDS} s.`,
    { scope, limit },
    { headers: { 'Retry-After': String(STREAM_REFUSED_RETRY_AFTER_SECONDS) } },
  );
}

// Headers that keep proxies from buffering or compressing the stream.
function startStream(res: Response): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no');
  res.setHeader('Connection', 'keep-alive');
  res.flushHeaders();
}
