/** ERC-20 tokens an EVM network serves, from `<NET>_TOKENS` (`USDT:0x...,USDC:0x...`): parsed in server/networks/evm.ts. */
export { parseTokens, type TokenConfig } from '../../networks/evm.js';
