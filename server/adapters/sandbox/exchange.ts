/**
 * The sandbox's exchange venue: it executes every conversion except the one a partner armed to fail
 * (POST /sandbox/swaps/{id}/failures with stage `exchange`, which arms it in store/sandbox-chain.ts). The
 * armed failure is one-shot: it fires on an attempt on the swap as it is now (not on one that read the swap
 * before the arming or another change, whose decision is thrown away), then refuses every attempt until the
 * refusal took effect (the swap's refund, `failure_code` `exchange_failed`), then nothing more until it is
 * armed again.
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
