/**
 * `make bench`, watching: the time from a sandbox payment to the swap's `confirming` event, with 1 open swap
 * and with BENCH_OPEN_SWAPS (default 10,000) open swaps. Watching must not scale with open swaps (docs/architecture.md#production:
 * one scan per block serves every watched address), so the ratio of the medians must stay at most 1.5x.
 *
 * The server runs in its own process (embedded PGlite, or a fresh database on the PostgreSQL of
 * DATABASE_URL), with SANDBOX_BLOCK_SECONDS 0.5. Each sample: a new swap, its stream opened, then the payment;
 * the latency is from sending POST /sandbox/deposits to the stream's `confirming` event (so it includes that
 * request, the watcher's scan and the swap's step). BENCH_WATCH_SAMPLES (default 15) samples per size, one
 * at a time. The open swaps are created through the API (quote, then swap) and wait for deposits that never
 * come; their deadlines lie far beyond the run.
 */
import path from 'node:path';
import { percentile, rssMb, startServerProcess } from './server-process.js';
import { openStream } from '../support/sse.js';
import { btcToUsdt, swapClient, type Swap } from '../support/swaps.js';

const OPEN_SWAPS = Number(process.env.BENCH_OPEN_SWAPS ?? 10_000);
const SAMPLES = Number(process.env.BENCH_WATCH_SAMPLES ?? 15);
const CREATE_CONCURRENCY = 50;
const LIMIT_RATIO = 1.5;
const root = path.resolve(import.meta.dirname, '../..');
const out = (line = '') => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const server = await startServerProcess(root, { env: { SANDBOX_BLOCK_SECONDS: '0.5', DEPOSIT_WINDOW_SECONDS: '86400' } });
  let failed = false;
  try {
    const client = swapClient(server.origin, server.signer);
    const request = btcToUsdt('0.015', { rateType: 'floating' });

    // One sample: a fresh swap with its address, its stream open, then the payment; ms to `confirming`.
    async function sample(): Promise<number> {
      const { order, accessToken } = await client.create(request);
      const ready: Swap = (await client.waitFor(order.id, (o) => !!o.depositAddress, 120_000)).order;
      const stream = await openStream(`${server.origin}/api/v1/swaps/${order.id}/stream`, { authorization: `Bearer ${accessToken}` });
      try {
        const started = performance.now();
        await client.pay(ready);
        await stream.waitFor((m) => m.event === 'order' && m.data.includes('"status":"confirming"'), 30_000);
        return performance.now() - started;
      } finally {
        stream.abort();
      }
    }
    async function measure(): Promise<number[]> {
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) times.push(await sample());
      return times;
    }

    const alone = await measure();
    out(`watching: creating ${OPEN_SWAPS} open swaps ...`);
    const createdAt = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CREATE_CONCURRENCY }, async () => {
        while (next < OPEN_SWAPS) {
          next += 1;
          await client.create(request);
        }
      }),
    );
    // Their first steps (the addresses) are queued behind: a probe swap's address says when they are done.
    const probe = await client.create(request);
    await client.waitFor(probe.order.id, (o) => !!o.depositAddress, 600_000);
    out(
      `  created and given addresses in ${((performance.now() - createdAt) / 1000).toFixed(1)} s; RSS ${rssMb(server.pid).toFixed(0)} MB`,
    );
    const crowded = await measure();

    const p50 = (values: number[]) => percentile(values, 50);
    const ratio = p50(crowded) / p50(alone);
    out('');
    out(`Payment to confirming event (${server.database}, SANDBOX_BLOCK_SECONDS 0.5, ${SAMPLES} samples each)`);
    out(`  open swaps       p50 ms    p99 ms`);
    out(`  1            ${p50(alone).toFixed(1).padStart(9)} ${percentile(alone, 99).toFixed(1).padStart(9)}`);
    out(`  ${String(OPEN_SWAPS).padEnd(12)} ${p50(crowded).toFixed(1).padStart(9)} ${percentile(crowded, 99).toFixed(1).padStart(9)}`);
    out(`  ratio ${ratio.toFixed(2)}x (limit ${LIMIT_RATIO}x): ${ratio <= LIMIT_RATIO ? 'met' : 'NOT MET'}`);
  } catch (err) {
    failed = true;
    out(`watching bench failed: ${err instanceof Error ? err.stack : String(err)}`);
  } finally {
    await server.stop();
  }
  if (failed) process.exit(1);
}

await main();
