// Dredd hooks for `make contract` (scripts/contract.ts). Dredd sends each operation's example request once
// per documented response status; these hooks turn every transaction into a request that really provokes
// that status, or skip it with a stated reason, and sign every signed operation.
//
// Routing: well-formed requests go through `prism proxy --errors`, which validates the real response against
// the spec. Requests that are deliberately invalid are sent straight to the server (PSS_SERVER_URL), because
// Prism refuses an invalid request itself (422) instead of forwarding it; the server still validates its own
// responses (VALIDATE_RESPONSES=true), so a 4xx body that broke the spec would come back as a 500 and fail.
const { createHash, createHmac, randomBytes } = require('node:crypto');
const http = require('node:http');
const net = require('node:net');
const fs = require('node:fs');
const path = require('node:path');
const hooks = require('hooks');

const serverUrl = new URL(process.env.PSS_SERVER_URL);
const audience = process.env.PSS_AUDIENCE;
// { main: {keyId, secret}, spares: [{keyId, secret}, ...] } provisioned by scripts/contract.ts.
const partners = JSON.parse(process.env.PSS_PARTNERS);
const limits = { public: Number(process.env.PSS_LIMIT_PUBLIC), signed: Number(process.env.PSS_LIMIT_SIGNED) };

// Operations specified but not implemented yet: server/handlers/index.ts PENDING_OPERATIONS, the one list,
// handed over by scripts/contract.ts. An operation leaves it when it lands and is then exercised here.
const pending = new Set(JSON.parse(process.env.PSS_PENDING));
const spec = JSON.parse(fs.readFileSync(path.join(__dirname, '../../generated/openapi.json'), 'utf8'));
const operationIdOf = (method, pathTemplate) => spec.paths[pathTemplate]?.[method.toLowerCase()]?.operationId;

const PUBLIC = new Set(['GET /health', 'GET /openapi.json', 'GET /assets', 'GET /pairs']);

// Statuses no request can provoke from outside a healthy server, with the suite that covers each instead.
const NOT_PROVOKABLE = {
  500: 'an unexpected fault; covered by test/integration/errors.test.ts',
  503: 'needs the database or a provider to be down; covered by test/integration/health.test.ts',
};

function parts(transaction) {
  const [pathTemplate, , status] = transaction.name.split(' > ');
  return {
    operation: `${transaction.request.method} ${pathTemplate}`,
    operationId: operationIdOf(transaction.request.method, pathTemplate),
    status: Number(status),
  };
}

// Send this transaction to `target` (default: the server itself) instead of through the validating proxy.
function direct(transaction, target = serverUrl) {
  transaction.host = target.hostname;
  transaction.port = target.port;
  transaction.protocol = target.protocol;
  transaction.direct = true;
}

function withQuery(transaction, query) {
  const [path] = transaction.fullPath.split('?');
  transaction.fullPath = query ? `${path}?${query}` : path;
  transaction.request.uri = transaction.fullPath;
}

function setBody(transaction, body, contentType = 'application/json') {
  transaction.request.body = body;
  transaction.request.headers['Content-Type'] = contentType;
}

// PSS1-HMAC-SHA256 over what the server receives: the /api/v1 path as sent and the exact body bytes.
function signedHeaders(method, pathAndQuery, body, partner, secret = partner.secret) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString('hex');
  const text = [
    'PSS1-HMAC-SHA256',
    audience,
    method,
    pathAndQuery,
    timestamp,
    nonce,
    partner.keyId,
    'contract-user',
    createHash('sha256')
      .update(body || '', 'utf8')
      .digest('hex'),
  ].join('\n');
  return {
    'x-service-key-id': partner.keyId,
    'x-service-user': 'contract-user',
    'x-service-timestamp': timestamp,
    'x-service-nonce': nonce,
    'x-service-signature': `v1=${createHmac('sha256', secret).update(text).digest('hex')}`,
  };
}

function sign(transaction, partner, secret) {
  Object.assign(
    transaction.request.headers,
    signedHeaders(transaction.request.method, `/api/v1${transaction.fullPath}`, transaction.request.body, partner, secret),
  );
}

// Requests from 127.0.0.2 count against a rate-limit bucket of their own: public 429s are provoked there, so
// the bucket of 127.0.0.1 (Dredd and the proxy) stays open for the other transactions.
const SIDE_ADDRESS = '127.0.0.2';
let sideDoor;
function openSideDoor() {
  if (sideDoor) return sideDoor;
  sideDoor = new Promise((resolve) => {
    const forwarder = net.createServer((client) => {
      const upstream = net.connect({ host: serverUrl.hostname, port: Number(serverUrl.port), localAddress: SIDE_ADDRESS });
      client.pipe(upstream).pipe(client);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    forwarder.unref();
    forwarder.listen(0, '127.0.0.1', () => resolve(new URL(`http://127.0.0.1:${forwarder.address().port}`)));
  });
  return sideDoor;
}

function get(path, headers = {}, localAddress) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: serverUrl.hostname, port: serverUrl.port, path, headers, localAddress }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end();
  });
}

// Spends a whole window's allowance so that the transaction that follows gets 429.
async function exhaust(operation, transaction) {
  if (PUBLIC.has(operation)) {
    for (let i = 0; i < limits.public; i++) await get('/api/v1/health', {}, SIDE_ADDRESS);
    direct(transaction, await openSideDoor());
    return;
  }
  const partner = partners.spares.shift();
  if (!partner) throw new Error('scripts/contract.ts provisioned too few spare partners for the 429 transactions');
  for (let i = 0; i < limits.signed; i++) await get('/api/v1/partner/markup', signedHeaders('GET', '/api/v1/partner/markup', '', partner));
  transaction.partner = partner;
}

const provoke = {
  400(transaction, operation) {
    if (operation === 'GET /pairs') return withQuery(transaction, 'sourceAsset=BTC');
    if (operation === 'PUT /partner/markup') setBody(transaction, JSON.stringify({ percent: 5 }));
    // An unknown query parameter is refused by request validation on every operation.
    else withQuery(transaction, 'unexpected=1');
    direct(transaction);
  },
  401(transaction) {
    transaction.wrongSecret = true; // forwarded by Prism (the headers are there), refused by the server
  },
  413(transaction) {
    setBody(transaction, JSON.stringify({ percent: 1, padding: 'x'.repeat(70 * 1024) }));
    direct(transaction);
  },
  415(transaction) {
    setBody(transaction, 'percent=1', 'text/plain');
    direct(transaction);
  },
};

hooks.beforeEach((transaction, done) => {
  const { operation, operationId, status } = parts(transaction);
  // Dredd compares a body with the operation's first example key by key (array items by position), which
  // fails on any other valid body (another asset list, the other oneOf branch). Bodies are validated against
  // the full schemas instead: by Prism for proxied transactions, by the server's response validator for
  // direct ones (a violation there becomes a 500 and fails the status check).
  delete transaction.expected.body;
  delete transaction.expected.bodySchema;
  if (pending.has(operationId)) {
    transaction.skip = true;
    hooks.log(`skip ${operation} ${status}: ${operationId} is not implemented yet (501)`);
    return done();
  }
  if (NOT_PROVOKABLE[status]) {
    transaction.skip = true;
    hooks.log(`skip ${operation} ${status}: ${NOT_PROVOKABLE[status]}`);
    return done();
  }
  if (operation === 'GET /pairs' && status < 300) withQuery(transaction, 'sourceAsset=USDT&sourceNetwork=TRX');
  if (transaction.request.body) setBody(transaction, JSON.stringify(JSON.parse(transaction.request.body)));

  const finish = () => {
    if (!PUBLIC.has(operation))
      sign(transaction, transaction.partner || partners.main, transaction.wrongSecret ? 'pss_sk_not-the-partner-secret-000000' : undefined);
    if (transaction.direct) transaction.fullPath = `/api/v1${transaction.fullPath}`;
    done();
  };
  if (status >= 200 && status < 300) return finish();
  if (status === 429) {
    return exhaust(operation, transaction).then(finish, (err) => {
      transaction.fail = `could not provoke 429: ${err.message}`;
      done();
    });
  }
  const provoker = provoke[status];
  if (!provoker) {
    transaction.fail = `no hook provokes ${status} for ${operation}: add one to test/contract/dredd-hooks.cjs`;
    return done();
  }
  provoker(transaction, operation);
  finish();
});

// JSON has no charset parameter (RFC 8259), but express adds "; charset=utf-8" and Dredd compares the media
// type literally. Prism, which validates the response properly, accepts it; compare the media type alone here.
hooks.beforeEachValidation((transaction, done) => {
  const type = transaction.real.headers['content-type'];
  if (type) transaction.real.headers['content-type'] = type.split(';')[0].trim();
  done();
});
