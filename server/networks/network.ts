/**
 * The shape of one network's facts (server/networks/index.ts lists them): what the catalogue, the address
 * checks, production configuration, the request rules and the market pairs read. Pure data and pure checks:
 * no I/O, so domain/ may read it.
 */

/** What the service knows about a network's addresses on one chain. */
export interface AddressFormat {
  /** The network's name in reasons: `Bitcoin`, `Litecoin regtest`. */
  label: string;
  /** Networks sharing a format accept each other's addresses (ETH and BSC), so neither is "the other network". */
  format: string;
  /** Why the address is refused, or undefined when it is accepted (the text is already known to be non-empty, short, spaceless). */
  check(address: string): string | undefined;
  /** A deposit address in this format, derived from a 32-byte seed (the sandbox's). */
  sandboxAddress(seed: Uint8Array): string;
  /** A transaction hash in the network's notation, derived from a 32-byte seed (the sandbox's). */
  sandboxTxHash(seed: Uint8Array): string;
}

/** A network's memo (destination tag, comment): what it is called and which texts it accepts. */
export interface MemoRule {
  /** The memo's name to a partner (`memoName` in /assets). */
  name: string;
  /** Why the memo is refused (completing "<name> ..."), or undefined when it is accepted. */
  check(memo: string): string | undefined;
  /** A memo in this form, derived from a 32-byte seed (the sandbox's). */
  sandbox(seed: Uint8Array): string;
}

/** Each market-data provider's market of one coin (adapters/market/pairs.ts); an absent provider does not list it. */
export type MarketSymbols = Partial<Record<'kraken' | 'binance' | 'coinbase' | 'bitfinex', string>>;

/** The production families (server/production-config.ts reads their variables, server/wiring.ts builds their adapters). */
export type FamilyName = 'bitcoin' | 'ethereum' | 'zano' | 'monero';

/** What a variable's check may ask about the rest of the configuration. */
export interface VariableContext {
  /** The network being configured (`LTC`). */
  network: string;
  /** Another variable of the same network, by suffix (`CHAIN`), as given (undefined when unset). */
  sibling(suffix: string): string | undefined;
  /** Why `address` is not an address of this network on the configured chain, or undefined (domain/addresses.ts). */
  addressProblem(address: string): string | undefined;
}

/** One `<NET>_<SUFFIX>` variable of a production family. */
export interface ConfigVariable {
  /** The name after `<NET>_`: `RPC_URL`. */
  suffix: string;
  /** What it holds, for the documentation and the required line. `{NET}` is replaced by the network. */
  meaning: string;
  /** Set when the start is refused without it. */
  required?: true;
  /** The value used when it is unset, when there is one. */
  default?: string | ((network: string) => string);
  /** The problem line for `value` of the variable `name`, or undefined when it is good. */
  check(value: string, name: string, context: VariableContext): string | undefined;
}

/** A production family: the variables each of its networks reads. */
export interface ProductionFamily {
  family: FamilyName;
  /** The software it speaks to, for messages and docs. */
  software: string;
  variables: readonly ConfigVariable[];
  /** Variables of other families that are refused here, with the reason (`<NET>_PAYOUT_BATCH_SECONDS` on EVM). */
  refused?: readonly { suffix: string; reason: (network: string) => string }[];
  /** Assets served beside the native coin whatever the configuration (Zano: fUSD); configured tokens come on top. */
  servedAssets?: readonly string[];
}

/** Whether and how production serves a network. */
export type ProductionSupport =
  | { kind: 'family'; family: ProductionFamily }
  /** Served by the sandbox's simulated chain only; `why` says what production would need. */
  | { kind: 'sandbox-only'; why: string };

/** One chain of a network; each family adds its own parameters. */
export interface ChainParams {
  /** A name for messages: `LTC regtest`. */
  name: string;
}

/** One network's facts. */
export interface NetworkFacts {
  /** The network id the API uses (`BTC`, `BSC`). */
  id: string;
  /** The provider code partners see as `networkCode` (`ERC20`, `BEP20`). */
  code: string;
  /** The display name (`BNB Smart Chain`). */
  name: string;
  /** The coin that pays the network's fees (`BNB` on BSC). */
  nativeCoin: string;
  /** Mainnet address format (regtest wallets of Monero and Zano use it too). */
  address: AddressFormat;
  /** Address formats of the test chains a production node may run (`<NET>_CHAIN`), where they differ from mainnet. */
  testChains?: Partial<Record<'test' | 'regtest', AddressFormat>>;
  /** The memo a deposit or payout of the network carries to tell accounts apart; absent: none. */
  memo?: MemoRule;
  /** Whether a payment shows a sender a refund could trust (refundMode sender, sender screening). */
  senderKnown: boolean;
  /** Default deposit confirmations (production's `<NET>_CONFIRMATIONS` overrides it). */
  confirmations: number;
  /** The chain's target time between blocks. */
  blockSeconds: number;
  /**
   * The chains the network runs on, by the name `<NET>_CHAIN` (or the family) uses (`main`, `testnet`, `regtest`),
   * each with its family's parameters (Bitcoin: adapters' BitcoinParams; EVM: the chain id; Monero: the nettype).
   */
  chains: Readonly<Record<string, ChainParams>>;
  /** The markets of the native coin, by provider (adapters/market/pairs.ts); empty: no provider lists it. */
  markets: MarketSymbols;
  production: ProductionSupport;
}
