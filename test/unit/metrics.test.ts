import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { expect } from 'chai';
import { postWebhook } from '../../server/jobs/webhook-delivery.js';
import { createMetrics, webhookOutcome } from '../../server/metrics.js';
import { freePort } from '../support/process.js';

describe('metrics', () => {
  describe('webhookOutcome(attempt)', () => {
    let server: http.Server;
    let url: string;
    before(async () => {
      server = http.createServer((req, res) => {
        req.resume();
        if (req.url === '/hang') return;
        res.writeHead(req.url === '/fail' ? 500 : 204).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const post = (target: string) =>
      postWebhook(target, {}, '{}', {
        timeoutMs: 200,
        policy: { requireHttps: false, allowPrivateTargets: true, canAllowPrivateTargets: true },
        lookup: dns.lookup as unknown as LookupFunction,
      });

    it('classifies a 2xx answer as succeeded', async () => {
      expect(webhookOutcome(await post(`${url}/ok`))).to.equal('succeeded');
    });

    it('classifies another status as http_error', async () => {
      expect(webhookOutcome(await post(`${url}/fail`))).to.equal('http_error');
    });

    it('classifies an attempt cut off by the time limit as timeout', async () => {
      expect(webhookOutcome(await post(`${url}/hang`))).to.equal('timeout');
    });

    it('classifies a refused connection as network_error', async () => {
      expect(webhookOutcome(await post(`http://127.0.0.1:${await freePort()}/`))).to.equal('network_error');
    });
  });

  describe('createMetrics()', () => {
    it('keeps the series of two instances apart', async () => {
      const first = createMetrics();
      const second = createMetrics();
      first.countJobFailures('swap-advance', 3);
      expect(await first.registry.getSingleMetricAsString('pss_job_failures_total')).to.contain(
        'pss_job_failures_total{queue="swap-advance"} 3',
      );
      expect(await second.registry.getSingleMetricAsString('pss_job_failures_total')).not.to.contain('swap-advance');
    });

    it('reports every reason a stream can be refused for, at 0 before any refusal', async () => {
      const text = await createMetrics().registry.getSingleMetricAsString('pss_sse_streams_refused_total');
      expect(text).to.contain('# TYPE pss_sse_streams_refused_total counter');
      for (const reason of ['token', 'ip', 'partner', 'instance'])
        expect(text).to.contain(`pss_sse_streams_refused_total{reason="${reason}"} 0`);
    });

    it('leaves the queue depths out of a scrape when sampling them fails', async () => {
      const metrics = createMetrics();
      metrics.watchQueues(['swap-advance'], () => Promise.reject(new Error('database down')));
      expect(await metrics.registry.getSingleMetricAsString('pss_job_queue_depth')).not.to.contain('queue="swap-advance"');
    });

    it('stops sampling queues once unwatched', async () => {
      const metrics = createMetrics();
      const unwatch = metrics.watchQueues(['swap-advance'], async () => 7);
      expect(await metrics.registry.getSingleMetricAsString('pss_job_queue_depth')).to.contain(
        'pss_job_queue_depth{queue="swap-advance"} 7',
      );
      unwatch();
      expect(await metrics.registry.getSingleMetricAsString('pss_job_queue_depth')).not.to.contain('swap-advance');
    });
  });
});
