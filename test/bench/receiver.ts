/**
 * The operations bench's webhook receiver, run as its own process (startBenchReceiver in server-process.ts)
 * so that the deliveries it takes (the test-send row's, and the swaps' updates during later rows) cost the
 * load generator's event loop nothing: it reads each request's body and answers 200 at once, keeping
 * nothing. Reads PORT.
 */
import http from 'node:http';

const port = Number(process.env.PORT);
http
  .createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-length': '0' }).end());
  })
  .listen(port, '127.0.0.1', () => process.stdout.write(`bench receiver listening on ${port}\n`));
