/** Partner operations: the markup applied to permanent routes created after it is set. */
import { Decimal } from 'decimal.js';
import { invalidRequest } from '../domain/errors.js';
import type { AuthenticatedPartner, Handlers } from '../http/handler-types.js';
import { findMarkup, upsertMarkup } from '../store/markups.js';
import type { HandlerDeps } from './deps.js';

/** Most decimal places a markup percent may have. */
export const MARKUP_DECIMAL_PLACES = 2;

/** Handlers for getPartnerMarkup and putPartnerMarkup. */
export function createPartnerHandlers(deps: HandlerDeps): Pick<Handlers, 'getPartnerMarkup' | 'putPartnerMarkup'> {
  return {
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
