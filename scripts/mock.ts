/**
 * `make mock`: Prism's mock of spec/openapi.yaml (the spec's examples, paths without /api/v1) and, beside
 * it, the API reference page the service serves at /docs, so a frontend team can read the contract and try
 * it without running the service. The page's own requests to /api/v1/... are passed to the mock; the
 * document it draws is the bundled one (generated/openapi.json), as the service serves it.
 *
 *   tsx scripts/mock.ts [--port 4010] [--docs-port 4011] [--host 127.0.0.1]
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import express from 'express';
import { API_BASE_PATH } from '../server/http/app.js';
import { createDocsRouter, DOCS_PATH } from '../server/http/docs.js';
import { loadApiDocument } from '../server/spec.js';

const MOCK_READY_TIMEOUT_MS = 60_000;

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4010' },
    'docs-port': { type: 'string', default: '4011' },
    host: { type: 'string', default: '127.0.0.1' },
  },
});
const host = values.host;
const mockPort = Number(values.port);
const docsPort = Number(values['docs-port']);
const root = path.resolve(import.meta.dirname, '..');
const mockUrl = `http://${host}:${mockPort}`;

// --cors: a frontend team's page on its dev server (another origin) can call the mock, as it calls the service
// with CORS_ORIGINS. It is Prism's default, said here so that a change of default does not take it away.
const prism = spawn(
  path.join(root, 'node_modules/.bin/prism'),
  ['mock', '--cors', '--host', host, '--port', String(mockPort), 'spec/openapi.yaml'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);

const { document } = loadApiDocument();
const app = express();
app.disable('x-powered-by');
app.use(createDocsRouter({ documentUrl: `${API_BASE_PATH}/openapi.json` }));
app.get(`${API_BASE_PATH}/openapi.json`, (_req, res) => {
  res.json(document);
});
// Everything else under /api/v1 goes to the mock, which serves the paths without the prefix.
app.use(API_BASE_PATH, (req, res) => {
  const upstream = http.request(`${mockUrl}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', (err) => {
    if (!res.headersSent) res.status(502).type('text').send(`The mock at ${mockUrl} did not answer: ${err.message}\n`);
  });
  req.pipe(upstream);
});
const docsServer = app.listen(docsPort, host);
docsServer.on('error', (err) => {
  process.stderr.write(`The reference page cannot listen on ${host}:${docsPort}: ${err.message}\n`);
  prism.kill('SIGTERM');
});

prism.on('exit', (code, signal) => {
  docsServer.close();
  process.exit(code ?? (signal ? 1 : 0));
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => prism.kill(signal));

await waitForMock();
process.stdout.write(
  `\nmock:           ${mockUrl} (Prism: the spec's examples, paths without ${API_BASE_PATH})\n` +
    `reference page: http://${host}:${docsPort}${DOCS_PATH} (its requests to ${API_BASE_PATH} go to the mock)\n` +
    `the service serves the same page at ${DOCS_PATH} (\`make run\`: http://127.0.0.1:8080${DOCS_PATH})\n\n`,
);

// Prism prints its routes as it starts; the addresses are printed after them, once it answers.
async function waitForMock(): Promise<void> {
  const deadline = Date.now() + MOCK_READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      await (await fetch(`${mockUrl}/health`)).arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  process.stderr.write(`The mock did not answer at ${mockUrl} within ${MOCK_READY_TIMEOUT_MS / 1000} s.\n`);
  prism.kill('SIGTERM');
}
