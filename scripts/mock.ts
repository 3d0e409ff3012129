/**
 * `make mock`: Prism's mock of spec/openapi.yaml (the spec's examples, paths without /api/v1) and, beside
 * it, the API reference page the service serves at /docs, so a frontend team can read the contract and try
 * it without running the service. The page's own requests to /api/v1/... are passed to the mock; the
 * document it draws is the bundled one (generated/openapi.json), as the service serves it.
 *
 * The mock answers browsers as the service does (server/http/cors.ts): public operations and token reads for
 * the origins of MOCK_CORS_ORIGINS (written as CORS_ORIGINS; `*` when unset), a signed operation's preflight
 * refused with 403 browser_not_allowed.
 *
 *   [MOCK_CORS_ORIGINS=http://localhost:5173] tsx scripts/mock.ts [--port 4010] [--docs-port 4011] [--host 127.0.0.1]
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import express, { type RequestHandler } from 'express';
import { parseCorsOrigins } from '../server/config.js';
import { createLogger } from '../server/logger.js';
import { API_BASE_PATH } from '../server/http/app.js';
import { cors } from '../server/http/cors.js';
import { DOCS_PATH, mountDocs } from '../server/http/docs.js';
import { errorHandler } from '../server/http/errors.js';
import { indexOperations } from '../server/http/operations.js';
import { requestId } from '../server/http/request-id.js';
import { loadApiDocument } from '../server/spec.js';

const MOCK_READY_TIMEOUT_MS = 60_000;
// As server/main.ts exits on a configuration it cannot use (EX_CONFIG).
const EXIT_CONFIG = 78;

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

// The mock is a sandbox for frontend teams: any origin unless MOCK_CORS_ORIGINS lists some, as CORS_ORIGINS does.
const corsSetting = parseCorsOrigins('MOCK_CORS_ORIGINS', process.env.MOCK_CORS_ORIGINS?.trim() || '*');
if ('problem' in corsSetting) {
  process.stderr.write(`${corsSetting.problem}\n`);
  process.exit(EXIT_CONFIG);
}

// Prism listens where only the front below reaches it; --cors=false because its CORS would answer every
// origin for every operation, signed ones included, where the service refuses them.
const prismPort = await freeLoopbackPort();
const prismUrl = `http://127.0.0.1:${prismPort}`;
const prism = spawn(
  path.join(root, 'node_modules/.bin/prism'),
  ['mock', '--cors=false', '--host', '127.0.0.1', '--port', String(prismPort), 'spec/openapi.yaml'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);

const { document } = loadApiDocument();
// The front answers CORS with the service's own middleware and operation table, so a page learns on the mock
// what the service will allow it; everything else is Prism's. Its paths have no /api/v1 prefix: basePath ''.
// Every operation, sandbox ones too: Prism mocks them all.
const front = express();
front.disable('x-powered-by');
front.set('etag', false);
front.use(requestId());
front.use(cors({ origins: corsSetting.origins, routes: indexOperations(document), basePath: '' }));
front.use(proxyTo(prismUrl));
// A refusal (browser_not_allowed, origin_not_allowed) leaves with the spec's Error body, as the service's does.
front.use(errorHandler(createLogger('warn')));
const frontServer = http.createServer(front);

const app = express();
app.disable('x-powered-by');
mountDocs(app, { documentUrl: `${API_BASE_PATH}/openapi.json` });
app.get(`${API_BASE_PATH}/openapi.json`, (_req, res) => {
  res.json(document);
});
// Everything else under /api/v1 goes to the mock's front, which serves the paths without the prefix.
app.use(API_BASE_PATH, proxyTo(mockUrl));
const docsServer = http.createServer(app);

const servers = [
  [frontServer, mockPort, 'The mock'],
  [docsServer, docsPort, 'The reference page'],
] as const;
for (const [server, port, what] of servers) {
  server.on('error', (err) => {
    process.stderr.write(`${what} cannot listen on ${host}:${port}: ${err.message}\n`);
    prism.kill('SIGTERM');
  });
}

prism.on('exit', (code, signal) => {
  frontServer.close();
  docsServer.close();
  process.exit(code ?? (signal ? 1 : 0));
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => prism.kill(signal));

// Both listen once Prism answers, so that an answer from the mock's address is Prism's (a test waits for one).
if (await waitForPrism()) {
  let listening = 0;
  for (const [server, port] of servers) {
    server.listen(port, host, () => {
      if (++listening === servers.length) printAddresses();
    });
  }
}

function printAddresses(): void {
  process.stdout.write(
    `\nmock:           ${mockUrl} (Prism: the spec's examples, paths without ${API_BASE_PATH})\n` +
      `reference page: http://${host}:${docsPort}${DOCS_PATH} (its requests to ${API_BASE_PATH} go to the mock)\n` +
      `the service serves the same page at ${DOCS_PATH} (\`make run\`: http://127.0.0.1:8080${DOCS_PATH})\n\n`,
  );
}

// Passes the request on to `baseUrl` (req.url: the path below the mount point) and streams both bodies; the
// headers set here before (CORS) are merged into the answer's by writeHead.
function proxyTo(baseUrl: string): RequestHandler {
  return (req, res) => {
    const upstream = http.request(`${baseUrl}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      if (!res.headersSent) res.status(502).type('text').send(`The mock at ${baseUrl} did not answer: ${err.message}\n`);
    });
    req.pipe(upstream);
  };
}

// A port no one listened on a moment ago, for Prism behind the front.
async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

// Prism prints its routes as it starts; the addresses are printed after them, once it answers.
async function waitForPrism(): Promise<boolean> {
  const deadline = Date.now() + MOCK_READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      await (await fetch(`${prismUrl}/health`)).arrayBuffer();
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  process.stderr.write(`Prism did not answer at ${prismUrl} within ${MOCK_READY_TIMEOUT_MS / 1000} s.\n`);
  prism.kill('SIGTERM');
  return false;
}
