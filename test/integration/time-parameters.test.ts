import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectError, type JsonResponse } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { swapClient } from '../support/swaps.js';
import type { components } from '../../generated/api.js';

type EarningsPage = components['schemas']['EarningsPage'];
type ErrorBody = components['schemas']['Error'];

// A cursor of this API's shape (base64url JSON of position and filter) with the given fields.
const cursorOf = (position: Record<string, string>, filter: string | null) =>
  Buffer.from(JSON.stringify({ p: position, f: filter })).toString('base64url');

describe('Times in query parameters and cursors', () => {
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;

  before(async () => {
    server = await startTestServer();
    client = swapClient(server.origin, { ...(await server.createSigner('Timekeeper')), user: 'user-1' });
  });
  after(() => server.close());

  const earnings = (query: string) => client.send<EarningsPage>('GET', `/api/v1/partner/earnings?${query}`);

  // A 400 invalid_request naming the parameter and giving its value back.
  const expectRefused = (response: JsonResponse, field: string, value: string, message: RegExp) => {
    expectError(response, 400, 'invalid_request');
    const { error } = response.body as ErrorBody;
    expect(error.details, response.text).to.deep.equal({ field, value });
    expect(error.message).to.match(message).and.include(value);
  };

  describe('GET /partner/earnings from and to', () => {
    it('refuses a leap second in from with 400, not 500', async () => {
      expectRefused(await earnings('from=2026-06-30T23:59:60Z'), 'from', '2026-06-30T23:59:60Z', /leap second/);
    });

    it('refuses a leap second in to, with a fraction or written with an offset', async () => {
      expectRefused(await earnings('to=2016-12-31T23:59:60.5Z'), 'to', '2016-12-31T23:59:60.5Z', /leap second/);
      expectRefused(await earnings('to=2026-06-30T23:59:60-05:00'), 'to', '2026-06-30T23:59:60-05:00', /leap second/);
      expectRefused(await earnings('from=2026-06-30t23:59:60z'), 'from', '2026-06-30t23:59:60z', /leap second/);
    });

    it('refuses an offset of hours alone (+01), which the validator lets through, with 400', async () => {
      expectRefused(await earnings('from=2026-06-30T12:00:00%2B01'), 'from', '2026-06-30T12:00:00+01', /not a time this API can read/);
      expectRefused(await earnings('to=2026-06-30T12:00:00-05'), 'to', '2026-06-30T12:00:00-05', /not a time this API can read/);
    });

    it('still accepts every other form the contract allows, down to year 0 and up past 9999 by offset', async () => {
      for (const query of [
        'from=2026-06-30t12:00:00z',
        'from=2026-06-30T12:00:00%2B0100',
        'from=2026-06-30T12:00:00.123456789Z',
        'from=0000-01-01T00:00:00%2B23:59',
        'to=9999-12-31T23:59:59-23:59',
        'from=2026-06-30T23:59:59.999Z&to=2026-07-01T00:00:00Z',
      ]) {
        const page = await earnings(query);
        expect(page.status, `${query}: ${page.text}`).to.equal(200);
        expect(page.body).to.deep.equal({ earnings: [], totals: [], nextCursor: null });
      }
    });
  });

  describe('cursors', () => {
    const id = randomUUID();
    const leap = '2026-06-30T23:59:60.000Z';

    it('refuses a cursor whose time is a leap second on every list, with 400', async () => {
      for (const path of [
        `/api/v1/partner/earnings?cursor=${cursorOf({ c: leap, i: id }, '..')}`,
        `/api/v1/swaps?cursor=${cursorOf({ c: leap, i: id }, null)}`,
        `/api/v1/permanent-routes?cursor=${cursorOf({ c: leap, i: id }, null)}`,
        `/api/v1/partner/webhook/deliveries?cursor=${cursorOf({ a: leap, s: '1' }, null)}`,
      ]) {
        const response = await client.send('GET', path);
        expectError(response, 400, 'invalid_request');
        expect((response.body as ErrorBody).error.details, path).to.deep.equal({ field: 'cursor' });
      }
    });

    it('accepts a cursor at the edges of the range a time can have (years 0000 and 9999)', async () => {
      for (const path of [
        `/api/v1/swaps?cursor=${cursorOf({ c: '0000-01-01T00:00:00.000Z', i: id }, null)}`,
        `/api/v1/swaps?cursor=${cursorOf({ c: '9999-12-31T23:59:59.999Z', i: id }, null)}`,
        `/api/v1/partner/webhook/deliveries?cursor=${cursorOf({ a: '0000-01-01T00:00:00.000Z', s: '999999999999999999' }, null)}`,
      ]) {
        const response = await client.send('GET', path);
        expect(response.status, `${path}: ${response.text}`).to.equal(200);
      }
    });
  });
});
