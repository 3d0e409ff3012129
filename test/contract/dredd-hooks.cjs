// Dredd hooks for `make contract` (scripts/contract.ts). Dredd sends each operation's example request once
// per documented response status; these hooks turn every transaction into a request that really provokes
// that status, or skip it with a stated reason.
//
// Routing: well-formed requests go through `prism proxy --errors`, which validates the real response against
// the spec. Requests that are deliberately invalid are sent straight to the server (PSS_SERVER_URL), because
// Prism refuses an invalid request itself (422) instead of forwarding it; the server still validates its own
// responses (VALIDATE_RESPONSES=true), so a 4xx body that broke the spec would come back as a 500 and fail.
const hooks = require('hooks');

const serverUrl = new URL(process.env.PSS_SERVER_URL);

// Operations specified but not implemented yet ("METHOD /path"). This list shrinks as issues land.
const PENDING = new Set([
  'POST /quotes',
  'GET /swaps',
  'POST /swaps',
  'GET /swaps/{id}',
  'GET /swaps/{id}/stream',
  'GET /partner/webhook',
  'PUT /partner/webhook',
  'GET /partner/markup',
  'PUT /partner/markup',
  'GET /partner/earnings',
  'POST /permanent-routes/challenges',
  'POST /permanent-routes',
  'GET /permanent-routes',
  'GET /permanent-routes/{id}',
  'GET /permanent-routes/{id}/deposits',
  'POST /permanent-routes/{id}/expect-deposit',
  'POST /sandbox/deposits',
  'POST /sandbox/swaps/{id}/review-decision',
  'POST /sandbox/swaps/{id}/failures',
]);

// Statuses no request can provoke from outside a healthy server, with the suite that covers each instead.
const NOT_PROVOKABLE = {
  500: 'an unexpected fault; covered by test/integration/errors.test.ts',
  503: 'needs the database or a provider to be down; covered by test/integration/health.test.ts',
  429: 'needs the rate limit exhausted; covered by the rate-limit integration tests',
};

function parts(transaction) {
  const [pathTemplate, , status] = transaction.name.split(' > ');
  return { operation: `${transaction.request.method} ${pathTemplate}`, status: Number(status) };
}

// Send this transaction to the server directly instead of through the validating proxy.
function direct(transaction) {
  transaction.host = serverUrl.hostname;
  transaction.port = serverUrl.port;
  transaction.protocol = serverUrl.protocol;
  transaction.fullPath = `/api/v1${transaction.fullPath}`;
}

function withQuery(transaction, query) {
  const [path] = transaction.fullPath.split('?');
  transaction.fullPath = query ? `${path}?${query}` : path;
  transaction.request.uri = transaction.fullPath;
}

const provoke = {
  400(transaction, operation) {
    if (operation === 'GET /pairs') return withQuery(transaction, 'sourceAsset=BTC');
    // An unknown query parameter is refused by request validation on every operation.
    withQuery(transaction, 'unexpected=1');
    direct(transaction);
  },
};

// Rate limiting (and its RateLimit-* headers) arrives with issue 3; until then these are not expected.
const NOT_SENT_YET = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

hooks.beforeEach((transaction, done) => {
  const { operation, status } = parts(transaction);
  for (const name of NOT_SENT_YET) delete transaction.expected.headers[name];
  // Dredd compares a body with the operation's first example key by key (array items by position), which
  // fails on any other valid body (another asset list, the other oneOf branch). Bodies are validated against
  // the full schemas instead: by Prism for proxied transactions, by the server's response validator for
  // direct ones (a violation there becomes a 500 and fails the status check).
  delete transaction.expected.body;
  delete transaction.expected.bodySchema;
  if (PENDING.has(operation)) {
    transaction.skip = true;
    return done();
  }
  if (NOT_PROVOKABLE[status]) {
    transaction.skip = true;
    hooks.log(`skip ${operation} ${status}: ${NOT_PROVOKABLE[status]}`);
    return done();
  }
  if (status >= 200 && status < 300) {
    if (operation === 'GET /pairs') withQuery(transaction, 'sourceAsset=USDT&sourceNetwork=TRX');
    return done();
  }
  const provoker = provoke[status];
  if (!provoker) {
    transaction.fail = `no hook provokes ${status} for ${operation}: add one to test/contract/dredd-hooks.cjs`;
    return done();
  }
  provoker(transaction, operation);
  done();
});

// JSON has no charset parameter (RFC 8259), but express adds "; charset=utf-8" and Dredd compares the media
// type literally. Prism, which validates the response properly, accepts it; compare the media type alone here.
hooks.beforeEachValidation((transaction, done) => {
  const type = transaction.real.headers['content-type'];
  if (type) transaction.real.headers['content-type'] = type.split(';')[0].trim();
  done();
});
