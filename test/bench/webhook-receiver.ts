/**
 * The operations bench's webhook receiver, run as its own process: it answers every POST to its path 200 with
 * `{}` and anything else 404 (so a wrong webhook URL shows as failed deliveries), and keeps nothing. It stands
 * in for a partner's receiver, which runs on the partner's machines, not on the service's: it is plain
 * node:http so that it takes as little as it can of the CPU the server and the mock are measured on. Started
 * by startWebhookReceiver in server-process.ts; reads PORT and HOOK_PATH.
 */
import http from 'node:http';

const port = Number(process.env.PORT);
const hookPath = process.env.HOOK_PATH;
const answer = Buffer.from('{}');
http
  .createServer((req, res) => {
    req.resume();
    if (req.method !== 'POST' || req.url !== hookPath) {
      res.writeHead(404, { 'Content-Length': 0 });
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': answer.length });
    res.end(answer);
  })
  .listen(port, '127.0.0.1', () => process.stdout.write(`webhook receiver listening on ${port}\n`));
