/**
 * The sandbox's exchange venue: it executes every conversion except the one a partner armed to fail
 * (POST /sandbox/swaps/{id}/failures with stage `exchange`, which arms it in store/sandbox-chain.ts). The
 * armed failure is one-shot: it refuses the first attempt asked after the arming, and every retry of that
 * attempt, then nothing more until it is armed again.
 */
import type { Knex } from 'knex';
import { fireExchangeFailure } from '../../store/sandbox-chain.js';
import type { ExchangeVenue } from '../exchange.js';

/** The venue over the sandbox's tables in `knex`. */
export function createSimulatedExchange(deps: { knex: Knex }): ExchangeVenue {
  return {
    async refusal({ swapId, attemptKey }) {
      const refused = await fireExchangeFailure(deps.knex, swapId, attemptKey);
      return refused ? 'the sandbox refused this exchange (an exchange failure was armed)' : null;
    },
  };
}
