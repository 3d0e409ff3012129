/**
 * The metrics listener: GET /metrics in Prometheus text format on a port of its own (METRICS_PORT), so the
 * series are never served on the public API port. Nothing else is served here.
 */
import http from 'node:http';
import type { Registry } from 'prom-client';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from './http-server.js';

/** The one path the metrics listener answers. */
export const METRICS_PATH = '/metrics';

/** Creates the metrics HTTP server for `registry`; the caller listens on it. */
export function createMetricsServer(registry: Registry): http.Server {
  const server = http.createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS }, (req, res) => {
    const path = new URL(req.url ?? '/', 'http://metrics').pathname;
    if (path !== METRICS_PATH) return answer(res, 404, `Not found: metrics are served at ${METRICS_PATH}\n`);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return answer(res, 405, `${req.method} is not allowed here; use GET\n`);
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => answer(res, 500, `Metrics could not be collected: ${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}

function answer(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/** A listening metrics server. */
export interface MetricsListener {
  /** e.g. http://127.0.0.1:9464/metrics */
  url: string;
  /** Stops listening and drops open connections (a scrape is short; nothing waits for it). */
  close(): Promise<void>;
}

/** Serves `registry` on `host`:`port` (0: a free port); resolves once it listens. */
export async function listenForMetrics(registry: Registry, port: number, host: string): Promise<MetricsListener> {
  const server = createMetricsServer(registry);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}${METRICS_PATH}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
