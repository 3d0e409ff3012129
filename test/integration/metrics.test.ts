import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parse as parseYaml } from 'yaml';
import { countSwapTransition } from '../../server/metrics.js';
import { transaction } from '../../server/store/after-commit.js';
import { expectError, readJson } from '../support/http.js';
import { freePort, startServerChild, type ServerChild } from '../support/process.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { signedFetch } from '../support/signer.js';
import { openStream } from '../support/sse.js';
import { btcToUsdt, swapClient } from '../support/swaps.js';
import { createReceiver, type Receiver, LOCAL_RECEIVER_ENV } from '../support/webhook-receiver.js';

const root = path.resolve(import.meta.dirname, '../..');

/** One sample of a scrape: metric name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

// Parses the Prometheus text format (the subset prom-client writes: no timestamps).
function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample named `name` whose labels include `labels` (undefined when there is none). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))?.value;
}

describe('Prometheus metrics', function () {
  this.timeout(120_000);

  describe('after a swap runs to finished', () => {
    let server: TestServer;
    let receiver: Receiver;
    const scrape = async () => {
      const res = await fetch(server.metricsUrl!);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      return parseSamples(await res.text());
    };
    /** Scrapes until `done` holds (counters incremented after a commit may trail the response by a moment). */
    const scrapeUntil = async (done: (samples: Sample[]) => boolean, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const samples = await scrape();
        if (done(samples) || Date.now() > deadline) return samples;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    before(async () => {
      receiver = await createReceiver();
      await receiver.listen();
      server = await startTestServer({ metrics: true, env: { ...LOCAL_RECEIVER_ENV, RATE_LIMIT_QUOTES_PER_MINUTE: '2' } });
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
    });

    it('counts requests, transitions, webhook deliveries and open streams', async () => {
      const partner = await server.createSigner('Measured');
      const client = swapClient(server.origin, partner);
      const webhook = await client.send('PUT', '/api/v1/partner/webhook', { url: receiver.url });
      expect(webhook.status, webhook.text).to.equal(200);

      const { order, accessToken } = await client.create();
      const stream = await openStream(`${server.baseUrl}/swaps/${order.id}/stream`, { authorization: `Bearer ${accessToken}` });
      expect(stream.status).to.equal(200);
      expect(valueOf(await scrape(), 'pss_sse_streams_open')).to.equal(1);

      await client.pay(order);
      await client.waitFor(order.id, (o) => o.status === 'finished');
      // The stream ends itself after the terminal entry; the gauge follows it back down.
      await stream.ended;
      expect(valueOf(await scrapeUntil((s) => valueOf(s, 'pss_sse_streams_open') === 0), 'pss_sse_streams_open')).to.equal(0);

      await receiver.waitFor((received) => received.some((d) => d.body.includes('"status":"finished"')));
      const samples = await scrapeUntil(
        (s) =>
          (valueOf(s, 'pss_webhook_deliveries_total', { outcome: 'succeeded' }) ?? 0) >= 1 &&
          valueOf(s, 'pss_swap_transitions_total', { status: 'finished' }) === 1,
      );

      const requests = (operationId: string, statusClass: string) =>
        valueOf(samples, 'pss_http_request_duration_seconds_count', { operation_id: operationId, status_class: statusClass });
      expect(requests('createQuote', '2xx')).to.equal(1);
      expect(requests('createSwap', '2xx')).to.equal(1);
      expect(requests('putPartnerWebhook', '2xx')).to.equal(1);
      expect(requests('createSandboxDeposit', '2xx')).to.equal(1);
      expect(requests('getSwap', '2xx')).to.be.at.least(1);
      expect(valueOf(samples, 'pss_http_request_duration_seconds_bucket', { operation_id: 'createSwap', le: '+Inf' })).to.equal(1);

      for (const status of ['exchanging', 'sending', 'finished']) {
        expect(valueOf(samples, 'pss_swap_transitions_total', { status }), status).to.equal(1);
      }
      // A swap records `confirming` again each time its worker sees more confirmations: one count per entry.
      const { events } = await client.get(order.id);
      const confirmingEntries = events.filter((e) => e.status === 'confirming').length;
      expect(confirmingEntries).to.be.at.least(1);
      expect(valueOf(samples, 'pss_swap_transitions_total', { status: 'confirming' }), 'confirming').to.equal(confirmingEntries);
      expect(valueOf(samples, 'pss_swap_transitions_total', { status: 'refunded' })).to.equal(undefined);
      expect(valueOf(samples, 'pss_webhook_deliveries_total', { outcome: 'succeeded' })).to.be.at.least(1);
      expect(valueOf(samples, 'pss_webhook_deliveries_total', { outcome: 'http_error' })).to.equal(undefined);
    });

    it('counts a 429 refusal by its limit class', async () => {
      const client = swapClient(server.origin, await server.createSigner('Hasty'));
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await client.send('POST', '/api/v1/quotes', btcToUsdt())).status);
      expect(statuses).to.deep.equal([200, 200, 429]);
      const samples = await scrape();
      expect(valueOf(samples, 'pss_rate_limit_refusals_total', { class: 'quotes' })).to.equal(1);
      expect(valueOf(samples, 'pss_http_request_duration_seconds_count', { operation_id: 'createQuote', status_class: '4xx' })).to.equal(1);
    });

    it('counts streams refused by a limit by reason, and keeps the open-streams gauge at the streams admitted', async () => {
      const client = swapClient(server.origin, await server.createSigner('Streams everywhere'));
      const { order, accessToken } = await client.create();
      const open = () => openStream(`${server.baseUrl}/swaps/${order.id}/stream`, { authorization: `Bearer ${accessToken}` });
      const admitted = [await open(), await open(), await open()];
      const refused = await open();
      try {
        expect(admitted.map((s) => s.status)).to.deep.equal([200, 200, 200]);
        expect(refused.status).to.equal(429);
        const samples = await scrape();
        expect(valueOf(samples, 'pss_sse_streams_refused_total', { reason: 'token' })).to.equal(1);
        for (const reason of ['ip', 'partner', 'instance']) {
          expect(valueOf(samples, 'pss_sse_streams_refused_total', { reason }), reason).to.equal(0);
        }
        expect(valueOf(samples, 'pss_sse_streams_open')).to.equal(3);
        // A refused stream is no rate-limit refusal.
        expect(valueOf(samples, 'pss_rate_limit_refusals_total', { class: 'public' })).to.equal(undefined);
      } finally {
        for (const session of admitted) session.abort();
      }
      expect(valueOf(await scrapeUntil((s) => valueOf(s, 'pss_sse_streams_open') === 0), 'pss_sse_streams_open')).to.equal(0);
    });

    it('samples the job queues, the database pool and the process', async () => {
      const samples = await scrape();
      for (const queue of ['swap-advance', 'webhook-delivery', 'route-addresses']) {
        expect(valueOf(samples, 'pss_job_queue_depth', { queue }), queue)
          .to.be.a('number')
          .and.at.least(0);
      }
      expect(valueOf(samples, 'pss_db_pool_in_use')).to.be.a('number').and.at.least(0);
      expect(valueOf(samples, 'pss_db_pool_waiting')).to.be.a('number').and.at.least(0);
      expect(valueOf(samples, 'process_cpu_seconds_total')).to.be.greaterThan(0);
      expect(valueOf(samples, 'process_resident_memory_bytes')).to.be.greaterThan(0);
      expect(valueOf(samples, 'nodejs_eventloop_lag_seconds')).to.be.a('number');
    });

    it('serves every metric the shipped alerting rules name (deploy/prometheus/alerts.yml)', async () => {
      const rules = parseYaml(await fs.readFile(path.join(root, 'deploy/prometheus/alerts.yml'), 'utf8')) as {
        groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
      };
      const named = new Set(rules.groups.flatMap((g) => g.rules.flatMap((r) => [...r.expr.matchAll(/\bpss_\w+/g)].map((m) => m[0]))));
      expect([...named]).to.include.members([
        'pss_payouts_at_fee_cap',
        'pss_evm_oldest_unmined_nonce_seconds',
        'pss_payout_oldest_unmined_seconds',
        'pss_payouts_held',
        'pss_chain_alerts_open',
        'pss_cold_transfers_held',
        'pss_outputs_held',
      ]);
      const text = await (await fetch(server.metricsUrl!)).text();
      for (const name of named) expect(text, name).to.contain(`# TYPE ${name} gauge`);
      // Nothing is held, waiting or taken back here: the gauges have no series above zero.
      const samples = parseSamples(text);
      for (const name of named)
        expect(
          samples.filter((s) => s.name === name && s.value > 0),
          name,
        ).to.deep.equal([]);
    });

    it('declares the job failure counter before any job failed', async () => {
      const text = await (await fetch(server.metricsUrl!)).text();
      expect(text).to.contain('# TYPE pss_job_failures_total counter');
      expect(valueOf(parseSamples(text), 'pss_job_failures_total')).to.equal(undefined);
    });

    it('labels requests that reached no operation as unknown', async () => {
      const res = await readJson(fetch(`${server.baseUrl}/no-such-thing`));
      expectError(res, 404, 'not_found');
      const samples = await scrape();
      expect(valueOf(samples, 'pss_http_request_duration_seconds_count', { operation_id: 'unknown', status_class: '4xx' })).to.be.at.least(
        1,
      );
    });

    it('counts a transition only once its transaction commits', async () => {
      const rolledBack = transaction(server.knex, async (trx) => {
        countSwapTransition(trx, 'review');
        throw new Error('rolled back on purpose');
      });
      expect(
        await rolledBack.then(
          () => 'committed',
          (err: Error) => err.message,
        ),
      ).to.equal('rolled back on purpose');
      await transaction(server.knex, async (trx) => countSwapTransition(trx, 'review'));
      const samples = await scrapeUntil((s) => valueOf(s, 'pss_swap_transitions_total', { status: 'review' }) !== undefined, 2_000);
      expect(valueOf(samples, 'pss_swap_transitions_total', { status: 'review' })).to.equal(1);
    });

    it('is not served on the API port', async () => {
      expectError(await readJson(fetch(`${server.origin}/metrics`)), 404, 'not_found');
      expectError(await readJson(fetch(`${server.baseUrl}/metrics`)), 404, 'not_found');
      const signer = await server.createSigner('Curious');
      expectError(await readJson(signedFetch(server.origin, signer, 'GET', '/metrics')), 404, 'not_found');
    });

    it('answers only GET /metrics on the metrics listener', async () => {
      const metricsOrigin = new URL(server.metricsUrl!).origin;
      expect((await fetch(`${metricsOrigin}/`)).status).to.equal(404);
      expect((await fetch(`${metricsOrigin}/api/v1/health`)).status).to.equal(404);
      const post = await fetch(server.metricsUrl!, { method: 'POST' });
      expect(post.status).to.equal(405);
      expect(post.headers.get('allow')).to.equal('GET, HEAD');
    });
  });

  describe('the server process with METRICS_PORT', () => {
    let dataDir: string;
    let server: ServerChild | undefined;
    before(async () => {
      dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-metrics-'));
    });
    afterEach(async () => {
      await server?.child.stop('SIGKILL');
      server = undefined;
    });
    after(() => fs.rm(dataDir, { recursive: true, force: true }));

    it('serves /metrics on its own port, prints its URL and stops it on SIGTERM', async () => {
      const metricsPort = await freePort();
      server = await startServerChild(root, { port: await freePort(), dataDir, env: { METRICS_PORT: String(metricsPort) } });
      const url = `http://127.0.0.1:${metricsPort}/metrics`;
      expect(server.child.output()).to.contain(`  metrics: ${url}\n`);
      const res = await fetch(url);
      expect(res.status).to.equal(200);
      const samples = parseSamples(await res.text());
      expect(
        valueOf(samples, 'pss_http_request_duration_seconds_count', { operation_id: 'getHealth', status_class: '2xx' }),
      ).to.be.at.least(1);
      expect(valueOf(samples, 'process_cpu_seconds_total')).to.be.greaterThan(0);
      expectError(await readJson(fetch(`${server.origin}/metrics`)), 404, 'not_found');

      expect(await server.child.stop('SIGTERM')).to.equal(0);
      const refused = await fetch(url).then(
        () => 'answered',
        () => 'refused',
      );
      expect(refused).to.equal('refused');
    });

    it('has no metrics listener when METRICS_PORT is unset', async () => {
      server = await startServerChild(root, { port: await freePort(), dataDir });
      expect(server.child.output()).not.to.contain('metrics:');
    });
  });
});
