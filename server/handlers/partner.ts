/** Partner operations: the markup applied to permanent routes created after it is set, and its earnings. */
import { Decimal } from 'decimal.js';
import { invalidRequest } from '../domain/errors.js';
import { Money } from '../domain/money.js';
import type { AuthenticatedPartner, Handlers } from '../http/handler-types.js';
import { findMarkup, upsertMarkup } from '../store/markups.js';
import { createEarningsReader } from '../store/route-deposits.js';
import { decodeCursor, encodeCursor, PAGE_POSITION, parseTimeParameter, positionOf } from './cursors.js';
import type { HandlerDeps } from './deps.js';

/** Most decimal places a markup percent may have. */
export const MARKUP_DECIMAL_PLACES = 2;

/** Handlers for getPartnerMarkup, putPartnerMarkup and listPartnerEarnings. */
export function createPartnerHandlers(deps: HandlerDeps): Pick<Handlers, 'getPartnerMarkup' | 'putPartnerMarkup' | 'listPartnerEarnings'> {
  const readEarnings = createEarningsReader(deps.knex);
  return {
    async listPartnerEarnings({ partner, query }) {
      const { partnerId } = requirePartner(partner);
      const from = query.from === undefined ? undefined : parseTimeParameter(query.from, 'from');
      const to = query.to === undefined ? undefined : parseTimeParameter(query.to, 'to');
      if (from && to && from >= to) throw invalidRequest('from must be before to.', { field: 'from' });
      const limit = query.limit ?? 50;
      // The cursor is bound to the filters, normalised so equal instants written differently still match.
      const filterKey = `${from?.toISOString() ?? ''}..${to?.toISOString() ?? ''}`;
      const after = query.cursor === undefined ? undefined : positionOf(decodeCursor(query.cursor, filterKey, PAGE_POSITION));
      const filter = { from, to };
      const { page: rows, totals } = await readEarnings(partnerId, filter, { limit: limit + 1, after });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const decimal = (value: string) => new Money(value).toFixed();
      return {
        status: 200,
        body: {
          earnings: page.map((e) => ({
            id: e.id,
            routeId: e.routeId,
            orderId: e.orderId,
            asset: e.asset,
            network: e.network,
            amount: decimal(e.amount),
            amountUsd: decimal(e.amountUsd),
            markupPercent: new Money(e.markupPercent).toNumber(),
            createdAt: e.createdAt.toISOString(),
          })),
          totals: totals.map((t) => ({ asset: t.asset, network: t.network, amount: decimal(t.amount), amountUsd: decimal(t.amountUsd) })),
          nextCursor: rows.length > limit && last ? encodeCursor({ c: last.createdAt.toISOString(), i: last.id }, filterKey) : null,
        },
      };
    },

    async getPartnerMarkup({ partner }) {
      const markup = await findMarkup(deps.knex, requirePartner(partner).partnerId);
      return {
        status: 200,
        body: markup ? { percent: Number(markup.percent), updatedAt: markup.updatedAt.toISOString() } : { percent: 0, updatedAt: null },
      };
    },

    async putPartnerMarkup({ partner, body }) {
      // The schema bounds the range (0 to 3); the precision rule is checked on the decimal text, not a float.
      const percent = new Decimal(String(body.percent));
      if (percent.decimalPlaces() > MARKUP_DECIMAL_PLACES) {
        throw invalidRequest(`percent has at most ${MARKUP_DECIMAL_PLACES} decimal places, e.g. 0.25 or 1.5.`, { percent: body.percent });
      }
      const markup = await upsertMarkup(deps.knex, requirePartner(partner).partnerId, percent.toFixed(MARKUP_DECIMAL_PLACES));
      return { status: 200, body: { percent: Number(markup.percent), updatedAt: markup.updatedAt.toISOString() } };
    },
  };
}

/** The authenticated partner of a signed operation; its absence is a wiring bug, not a client error. */
export function requirePartner(partner: AuthenticatedPartner | undefined): AuthenticatedPartner {
  if (!partner) throw new Error('signed operation reached its handler without an authenticated partner');
  return partner;
}
