/**
 * The sandbox's exchange venue: it executes every conversion except the one a partner armed to fail
 * (POST /sandbox/swaps/{id}/failures with stage `exchange`, which arms it in store/sandbox-chain.ts). The
 * armed failure is one-shot: it fires on the first attempt on the swap as it is since the arming, and refuses
 * that attempt's retries and the swap's later attempts until the swap leaves `exchanging` (the refusal's
 * refund), then nothing more until it is armed again. An attempt on an older version of the swap (a step that
 * read it before the arming, whose decision is thrown away) leaves the failure armed.
 */
import type { Knex } from 'knex';
import { fireExchangeFailure } from '../../store/sandbox-chain.js';
import type { ExchangeVenue } from '../exchange.js';

/** The venue over the sandbox's tables in `knex`. */
export function createSimulatedExchange(deps: { knex: Knex }): ExchangeVenue {
  return {
    async refusal({ swapId, swapVersion }) {
      const refused = await fireExchangeFailure(deps.knex, swapId, swapVersion);
      return refused ? 'the sandbox refused this exchange (an exchange failure was armed)' : null;
    },
  };
}
