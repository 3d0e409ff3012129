/**
 * The Node HTTP server the application runs in, with timeouts that keep slow or idle clients from holding
 * connections: the headers must arrive within HEADERS_TIMEOUT_MS, the whole request (headers and body)
 * within REQUEST_TIMEOUT_MS, and an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS.
 * Responses are not limited: a long-lived response such as an event stream is not cut off.
 */
import http from 'node:http';
import type { Express } from 'express';

/** Time allowed for a client to send the request headers. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** Time allowed for a client to send the whole request, body included (bodies are at most 64 KiB). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How long an idle keep-alive connection stays open between requests. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** Creates the HTTP server for `app` with the timeouts above; the caller listens on it. */
export function createHttpServer(app: Express): http.Server {
  const server = http.createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS }, app);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}
