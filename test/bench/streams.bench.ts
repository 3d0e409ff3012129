/**
 * `make bench`, live status: how many concurrent swap streams one server instance holds, what they cost in
 * memory, and how long a committed change takes to reach every stream. The server runs in its own process
 * (embedded PGlite, or a fresh database on the PostgreSQL of DATABASE_URL); this process only opens sockets and reads events.
 *
 *   BENCH_STREAMS (default 10000) streams, spread over BENCH_STREAM_SWAPS (default 100) swaps. Then every
 *   swap's deposit deadline is moved to now (sandbox clock): a committed `overdue` transition that each
 *   stream must deliver. Latency is from sending that request to the stream's event, so it includes the
 *   request itself: an upper bound of commit-to-client.
 *
 *   Every stream comes from this one process, address and partner, about STREAMS / SWAPS per access token:
 *   far past the production limits per token, IP and partner. The server is started with stream limits
 *   that fit exactly what the bench opens (and a lifetime longer than the run), so nothing is refused.
 */
import http from 'node:http';
import path from 'node:path';
import { percentile, rssMb, startServerProcess } from './server-process.js';
import { swapClient } from '../support/swaps.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000);
const SWAPS = Number(process.env.BENCH_STREAM_SWAPS ?? 100);
const CONNECT_BATCH = 500;
const root = path.resolve(import.meta.dirname, '../..');

interface OpenStream {
  swapId: string;
  opened: Promise<void>;
  sawOverdueAt?: number;
  request: http.ClientRequest;
}

function open(origin: string, swapId: string, token: string): OpenStream {
  const url = new URL(`${origin}/api/v1/swaps/${swapId}/stream`);
  let resolveOpened!: () => void;
  let rejectOpened!: (err: Error) => void;
  const stream: OpenStream = {
    swapId,
    opened: new Promise((res, rej) => ((resolveOpened = res), (rejectOpened = rej))),
    request: undefined as never,
  };
  stream.request = http.request(
    url,
    { agent: false, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
    (res) => {
      if (res.statusCode !== 200) return rejectOpened(new Error(`stream answered ${res.statusCode}`));
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('event: order')) resolveOpened();
        if (stream.sawOverdueAt === undefined && text.includes('"status":"overdue"')) stream.sawOverdueAt = performance.now();
        if (text.length > 65_536) text = text.slice(-1024);
      });
    },
  );
  stream.request.on('error', (err) => rejectOpened(err));
  stream.request.end();
  return stream;
}

async function main(): Promise<void> {
  const perToken = Math.ceil(STREAMS / SWAPS);
  const server = await startServerProcess(root, {
    env: {
      STREAM_MAX_PER_TOKEN: String(perToken),
      STREAM_MAX_PER_IP: String(STREAMS),
      STREAM_MAX_PER_PARTNER: String(STREAMS),
      STREAM_MAX_PER_INSTANCE: String(STREAMS),
      STREAM_MAX_LIFETIME_SECONDS: String(24 * 3600),
    },
  });
  const streams: OpenStream[] = [];
  try {
    const client = swapClient(server.origin, server.signer);
    const swaps: Array<{ id: string; token: string }> = [];
    for (let i = 0; i < SWAPS; i++) {
      const { order, accessToken } = await client.create();
      swaps.push({ id: order.id, token: accessToken });
    }
    for (const swap of swaps) await client.waitFor(swap.id, (o) => !!o.depositAddress, 60_000);
    const pid = server.pid;
    const rssBefore = rssMb(pid);

    const connectStarted = performance.now();
    for (let i = 0; i < STREAMS; i += CONNECT_BATCH) {
      const batch = Array.from({ length: Math.min(CONNECT_BATCH, STREAMS - i) }, (_, j) => {
        const swap = swaps[(i + j) % swaps.length];
        return open(server.origin, swap.id, swap.token);
      });
      streams.push(...batch);
      await Promise.all(batch.map((s) => s.opened));
    }
    const connectSeconds = (performance.now() - connectStarted) / 1000;
    const rssAfter = rssMb(pid);

    const sent = performance.now();
    await Promise.all(swaps.map((swap) => client.send('POST', `/api/v1/sandbox/swaps/${swap.id}/clock`, { deadline: 'deposit' })));
    const deadline = Date.now() + 120_000;
    while (streams.some((s) => s.sawOverdueAt === undefined) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const latencies = streams.filter((s) => s.sawOverdueAt !== undefined).map((s) => s.sawOverdueAt! - sent);

    process.stdout.write(
      `Swap streams: server in its own process (${server.database}), ${STREAMS} streams over ${SWAPS} swaps (aim: 10,000 per instance)\n`,
    );
    process.stdout.write(
      `  open streams held:         ${streams.length} (all received their first event; ${connectSeconds.toFixed(1)} s to open)\n`,
    );
    const perStream = ((rssAfter - rssBefore) * 1024) / STREAMS;
    process.stdout.write(
      `  server memory (RSS):       ${rssBefore.toFixed(0)} MB before, ${rssAfter.toFixed(0)} MB with the streams open` +
        (perStream > 0 ? ` (about ${perStream.toFixed(1)} KB per stream)\n` : " (garbage collection hid the streams' share)\n"),
    );
    process.stdout.write(`  change reached:            ${latencies.length} of ${streams.length} streams\n`);
    process.stdout.write(
      `  request-to-stream latency: p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms\n`,
    );
  } finally {
    for (const s of streams) s.request.destroy();
    await server.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
