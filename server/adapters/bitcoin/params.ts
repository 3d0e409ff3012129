/**
 * The parameters of the chains this adapter runs on: written once, with the rest of the Bitcoin family's facts,
 * in server/networks/bitcoin.ts.
 */
export { BITCOIN_PARAMS, KEY_VERSIONS, parseBitcoinParams, type BitcoinParams } from '../../networks/bitcoin.js';
