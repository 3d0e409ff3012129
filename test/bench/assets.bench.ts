/**
 * `make bench`: GET /assets on the real server (embedded PGlite, response validation off as in production)
 * against the same payload from a bare express handler and against the Prism mock, measured in one run
 * with autocannon. Prints requests/second and latency, and ratios to the bare-express baseline, because the
 * machine is shared and absolute numbers move from run to run.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import express from 'express';
import { startTestServer } from '../support/server.js';
import { startPrismMock } from '../support/process.js';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;
const root = path.resolve(import.meta.dirname, '../..');

interface Figures {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

async function measure(name: string, url: string): Promise<Figures> {
  await autocannon({ url, connections: CONNECTIONS, duration: 1 }); // warm-up
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_SECONDS });
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function main(): Promise<void> {
  const server = await startTestServer({ env: { VALIDATE_RESPONSES: 'false', RATE_LIMIT_PUBLIC_PER_MINUTE: '100000000' } });
  const payload = await (await fetch(`${server.baseUrl}/assets`)).json();

  const bare = express();
  bare.get('/api/v1/assets', (_req, res) => {
    res.json(payload);
  });
  const bareServer = http.createServer(bare);
  await new Promise<void>((resolve) => bareServer.listen(0, '127.0.0.1', resolve));
  const barePort = (bareServer.address() as AddressInfo).port;

  const mock = await startPrismMock(root);
  try {
    const figures: Figures[] = [];
    figures.push(await measure('bare express (baseline)', `http://127.0.0.1:${barePort}/api/v1/assets`));
    figures.push(await measure('partner-swap server', `${server.baseUrl}/assets`));
    figures.push(await measure('prism mock', `${mock.url}/assets`));
    const baseline = figures[0];
    process.stdout.write(`GET /assets, ${CONNECTIONS} connections, ${DURATION_SECONDS}s each\n`);
    process.stdout.write(
      `${'target'.padEnd(26)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'errors'.padStart(8)}${'throughput vs baseline'.padStart(25)}\n`,
    );
    for (const f of figures) {
      const ratio = (f.requestsPerSecond / baseline.requestsPerSecond).toFixed(2);
      process.stdout.write(
        `${f.name.padEnd(26)}${f.requestsPerSecond.toFixed(0).padStart(10)}${String(f.p50Ms).padStart(9)}${String(f.p99Ms).padStart(9)}${String(f.errors).padStart(8)}${`${ratio}x`.padStart(25)}\n`,
      );
    }
  } finally {
    await mock.stop();
    bareServer.close();
    await server.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
