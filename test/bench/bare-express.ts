/**
 * The baseline of the bench's bare-express ratios, run as its own process like the server: an express app
 * with one handler per route that answers a fixed JSON body, nothing else (no validation, authentication,
 * database). Started by startBareExpress in server-process.ts; reads PORT and BARE_ROUTES (JSON: BareRoute[]).
 */
import express from 'express';
import type { BareRoute } from './server-process.js';

const port = Number(process.env.PORT);
const routes = JSON.parse(process.env.BARE_ROUTES ?? '[]') as BareRoute[];
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
for (const route of routes) {
  app[route.method](route.path, (_req, res) => {
    res.status(route.status).json(route.body);
  });
}
app.listen(port, '127.0.0.1', () => process.stdout.write(`bare express listening on ${port}\n`));
