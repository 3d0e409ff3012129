/**
 * Property tests over HTTP: arbitrary text, date-like text and forged cursors thrown at every parameter of
 * the spec that carries a time or a page position (from, to, every list's cursor, Last-Event-ID,
 * x-service-timestamp). Whatever arrives, the answer is never a 5xx, and a 4xx has the spec's Error body.
 * Runs are few per parameter, so the file takes seconds.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../support/server.js';
import { signHeaders, type SignerOptions } from '../support/signer.js';
import { swapClient } from '../support/swaps.js';
import { createVerifiedRoute } from '../support/routes.js';

// Runs per parameter: enough to hit every generator branch, few enough for seconds per property.
const RUNS = 40;

const pad = (n: number, width: number) => String(n).padStart(width, '0');

// Mostly a value in range (so requests get past the validator and reach the handler), sometimes any.
const mostly = (min: number, max: number, anyMax: number) =>
  fc.oneof({ arbitrary: fc.integer({ min, max }), weight: 4 }, { arbitrary: fc.integer({ min: 0, max: anyMax }), weight: 1 });

/** Date-times near RFC 3339: each field sometimes out of range, leap seconds, separators and offsets in every spelling. */
const dateLike = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: mostly(1, 12, 19),
    day: mostly(1, 28, 39),
    hour: mostly(0, 23, 29),
    minute: mostly(0, 59, 69),
    second: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 59 }), weight: 3 }, fc.constant(60), fc.integer({ min: 0, max: 69 })),
    fraction: fc.oneof(fc.constant(''), fc.stringMatching(/^\.\d{1,12}$/)),
    separator: fc.oneof({ arbitrary: fc.constant('T'), weight: 4 }, fc.constantFrom('t', ' ')),
    offset: fc.oneof(
      fc.constantFrom('Z', 'z', ''),
      fc.tuple(fc.constantFrom('+', '-'), mostly(0, 23, 29), mostly(0, 59, 69), fc.constantFrom(':', '', 'none')),
    ),
  })
  .map(({ year, month, day, hour, minute, second, fraction, separator, offset }) => {
    const zone =
      typeof offset === 'string'
        ? offset
        : `${offset[0]}${pad(offset[1], 2)}${offset[3] === 'none' ? '' : `${offset[3]}${pad(offset[2], 2)}`}`;
    return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}${separator}${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${fraction}${zone}`;
  });

/** Instants a four-digit year can name, as toISOString() writes them (the shape cursors carry). */
const isoInstant = fc
  .date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

/** Times for a query parameter: date-like text, real instants, known hard cases and any text at all. */
const timeText = fc.oneof(
  { arbitrary: dateLike, weight: 4 },
  { arbitrary: isoInstant, weight: 2 },
  fc.constantFrom('2026-06-30T23:59:60Z', '2016-12-31T23:59:60.999-05:00', '2026-06-30T12:00:00+01', '0000-01-01T00:00:00Z'),
  fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'Invalid Date' : d.toISOString())),
  fc.string({ unit: 'grapheme', maxLength: 48 }),
);

/** The time field of a cursor: mostly in the shape cursors carry (YYYY-MM-DDTHH:MM:SS.mmmZ), not always possible. */
const cursorTimeText = fc.oneof(
  { arbitrary: isoInstant, weight: 3 },
  dateLike.map((text) => `${text.slice(0, 10)}T${text.slice(11, 19)}.000Z`),
  fc.string({ maxLength: 30 }),
);

const anyValue = fc.jsonValue({ maxDepth: 2 });
const encode = (value: unknown) => Buffer.from(JSON.stringify(value) ?? '').toString('base64url');

/**
 * Cursors: any text, random base64url, any JSON, and (mostly) this API's cursor shape with forged fields,
 * usually bound to `filter`, the one the request carries, so that many reach the query.
 */
function cursorText(position: fc.Arbitrary<Record<string, unknown>>, filter: string | null): fc.Arbitrary<string> {
  return fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.stringMatching(/^[A-Za-z0-9_-]{1,120}$/), anyValue.map(encode), {
    arbitrary: fc
      .record({
        p: fc.oneof({ arbitrary: position, weight: 4 }, anyValue),
        f: fc.oneof({ arbitrary: fc.constant(filter), weight: 4 }, anyValue),
      })
      .map(encode),
    weight: 8,
  });
}

const pagePosition = fc.record({ c: cursorTimeText, i: fc.oneof({ arbitrary: fc.uuid(), weight: 4 }, fc.string({ maxLength: 40 })) });
const attemptPosition = fc.record({
  a: cursorTimeText,
  s: fc.oneof(
    { arbitrary: fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }).map(String), weight: 4 },
    fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
    fc.string({ maxLength: 20 }),
  ),
});

describe('Fuzz: time and cursor parameters never answer 5xx', () => {
  let server: TestServer;
  let signer: SignerOptions;
  let routeId: string;
  let swap: { id: string; accessToken: string };

  before(async () => {
    // Hundreds of signed requests a minute: far above the default limit, which is not what is tested here.
    server = await startTestServer({ env: { RATE_LIMIT_SIGNED_PER_MINUTE: '100000', RATE_LIMIT_PUBLIC_PER_MINUTE: '100000' } });
    signer = { ...(await server.createSigner('Fuzzer')), user: 'user-1' };
    const client = swapClient(server.origin, signer);
    routeId = (await createVerifiedRoute(client, 'user-1')).route_id;
    const created = await client.create();
    swap = { id: created.order.id, accessToken: created.accessToken };
  });
  after(() => server.close());

  // The answer to a request: below 500, and a 4xx carries the Error body with the request id.
  async function expectHandled(response: Response, what: string, { signed = true } = {}): Promise<void> {
    if (response.status < 400) {
      await response.body?.cancel();
      return;
    }
    const text = await response.text();
    expect(response.status, `${what} -> ${response.status} ${text}`).to.be.below(500);
    // A 401 here would mean the request never reached the parameter (the test signed it wrongly).
    if (signed) expect(response.status, `${what} -> ${text}`).not.to.equal(401);
    expect(response.headers.get('content-type'), what).to.match(/^application\/json/);
    const body = JSON.parse(text) as { error: { code: unknown; message: unknown; requestId?: unknown } };
    expect(body.error.code, `${what} -> ${text}`).to.be.a('string').and.not.empty;
    expect(body.error.message, `${what} -> ${text}`).to.be.a('string').and.not.empty;
    expect(body.error.requestId, `${what} -> ${text}`).to.equal(response.headers.get('x-request-id'));
  }

  // encodeURIComponent leaves ' as is, which fetch would encode after signing; the signature covers what is sent.
  const encodeQueryValue = (value: string) => encodeURIComponent(value).replace(/'/g, '%27');

  const signedGet = (pathAndQuery: string) =>
    fetch(`${server.origin}${pathAndQuery}`, { headers: signHeaders(signer, 'GET', pathAndQuery) });

  // One query parameter of one list operation, sent with the other parameters `rest` (e.g. `&status=waiting`).
  const queryProperty = (path: string, name: string, values: fc.Arbitrary<[value: string, rest: string]>) =>
    fc.assert(
      fc.asyncProperty(values, async ([value, rest]) => {
        const pathAndQuery = `${path}?${name}=${encodeQueryValue(value)}${rest}`;
        await expectHandled(await signedGet(pathAndQuery), pathAndQuery);
      }),
      { numRuns: RUNS },
    );

  // Cursors for a list, each sent with one of its filters and mostly bound to that filter's key.
  const cursorsWith = (position: fc.Arbitrary<Record<string, unknown>>, filters: Array<{ query: string; key: string | null }>) =>
    fc.constantFrom(...filters).chain(({ query, key }) => cursorText(position, key).map((cursor): [string, string] => [cursor, query]));

  // The earnings filters, with the key each binds a cursor to (from..to, normalised).
  const earningsFilters = [
    { query: '', key: '..' },
    { query: '&from=2026-01-01T00:00:00Z', key: '2026-01-01T00:00:00.000Z..' },
    { query: '&to=2026-06-30T23:59:59.999Z', key: '..2026-06-30T23:59:59.999Z' },
  ];
  const alone = (values: fc.Arbitrary<string>) => values.map((value): [string, string] => [value, '']);

  it('GET /partner/earnings: from', () =>
    queryProperty('/api/v1/partner/earnings', 'from', fc.tuple(timeText, fc.constantFrom('', '&to=2026-06-30T23:59:59.999Z'))));

  it('GET /partner/earnings: to', () => queryProperty('/api/v1/partner/earnings', 'to', alone(timeText)));

  it('GET /partner/earnings: cursor', () =>
    queryProperty('/api/v1/partner/earnings', 'cursor', cursorsWith(pagePosition, earningsFilters)));

  it('GET /swaps: cursor', () =>
    queryProperty(
      '/api/v1/swaps',
      'cursor',
      cursorsWith(pagePosition, [
        { query: '', key: null },
        { query: '&status=waiting', key: 'waiting' },
      ]),
    ));

  it('GET /permanent-routes: cursor', () =>
    queryProperty('/api/v1/permanent-routes', 'cursor', cursorsWith(pagePosition, [{ query: '', key: null }])));

  it('GET /permanent-routes/{id}/deposits: cursor', () =>
    queryProperty(`/api/v1/permanent-routes/${routeId}/deposits`, 'cursor', cursorsWith(pagePosition, [{ query: '', key: routeId }])));

  it('GET /partner/webhook/deliveries: cursor', () => {
    const eventId = randomUUID();
    return queryProperty(
      '/api/v1/partner/webhook/deliveries',
      'cursor',
      cursorsWith(attemptPosition, [
        { query: '', key: null },
        { query: `&eventId=${eventId}`, key: eventId },
      ]),
    );
  });

  it('GET /swaps/{id}/stream: Last-Event-ID', () =>
    fc.assert(
      fc.asyncProperty(fc.oneof(fc.uuid(), fc.stringMatching(/^[\x21-\x7e]{1,80}$/)), async (lastEventId) => {
        const abort = new AbortController();
        const response = await fetch(`${server.baseUrl}/swaps/${swap.id}/stream`, {
          headers: { authorization: `Bearer ${swap.accessToken}`, 'last-event-id': lastEventId },
          signal: abort.signal,
        });
        try {
          if (response.status === 200) expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
          else await expectHandled(response, `Last-Event-ID: ${lastEventId}`);
        } finally {
          abort.abort();
        }
      }),
      { numRuns: RUNS },
    ));

  it('signed requests: x-service-timestamp', () =>
    fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.stringMatching(/^[\x21-\x7e]{1,30}$/),
          fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
          fc.double().map(String),
          fc.integer({ min: -600, max: 600 }).map((skew) => String(Math.floor(Date.now() / 1000) + skew)),
        ),
        async (timestamp) => {
          const path = '/api/v1/partner/earnings';
          const response = await fetch(`${server.origin}${path}`, { headers: signHeaders(signer, 'GET', path, '', { timestamp }) });
          await expectHandled(response, `x-service-timestamp: ${timestamp}`, { signed: false });
        },
      ),
      { numRuns: RUNS },
    ));
});
