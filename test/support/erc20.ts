/**
 * A minimal ERC-20 (test/fixtures/TestToken.sol) and a contract wallet (test/fixtures/ContractWallet.sol)
 * compiled with solc (npm, offline) at first use, the compiled JSON cached under .tmp/ by the source's hash,
 * and deployed with a wallet client. No mocha here: the devnet script imports it too.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseUnits, type Abi, type Account, type Chain, type Hex, type PublicClient, type Transport, type WalletClient } from 'viem';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CACHE_DIR = path.join(ROOT, '.tmp/solc');

/** A compiled contract: its ABI and creation bytecode. */
export interface CompiledToken {
  abi: Abi;
  bytecode: Hex;
}

/** Compiles TestToken.sol (or reads the cached result of this very source). */
export const compileToken = () => compileFixture('TestToken');

/** Compiles test/fixtures/`name`.sol's contract `name` (or reads the cached result of this very source). */
export async function compileFixture(name: string): Promise<CompiledToken> {
  const source = await fs.readFile(path.join(ROOT, 'test/fixtures', `${name}.sol`), 'utf8');
  const digest = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const cached = path.join(CACHE_DIR, `${name}-${digest}.json`);
  try {
    return JSON.parse(await fs.readFile(cached, 'utf8')) as CompiledToken;
  } catch {
    // not compiled yet
  }
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { [`${name}.sol`]: { content: source } },
        settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { [name]: ['abi', 'evm.bytecode.object'] } } },
      }),
    ),
  );
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n')}`);
  const contract = output.contracts[`${name}.sol`][name];
  const compiled: CompiledToken = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  await fs.mkdir(CACHE_DIR, { recursive: true });
  await fs.writeFile(cached, JSON.stringify(compiled));
  return compiled;
}

/** What to deploy: `supply` in whole tokens, held by the deployer. */
export interface TokenParams {
  symbol: string;
  decimals: number;
  supply: string;
  name?: string;
}

/** Deploys a token from `walletClient`'s account and waits for it to be mined; returns its address. */
export async function deployToken(
  walletClient: WalletClient<Transport, Chain | undefined, Account>,
  params: TokenParams,
  publicClient?: PublicClient,
): Promise<Hex> {
  const { abi, bytecode } = await compileToken();
  const hash = await walletClient.deployContract({
    abi,
    bytecode,
    chain: walletClient.chain ?? null,
    args: [params.name ?? `Test ${params.symbol}`, params.symbol, params.decimals, parseUnits(params.supply, params.decimals)],
  });
  const reader = publicClient ?? (walletClient as unknown as PublicClient);
  const receipt = await reader.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (!receipt.contractAddress) throw new Error(`deploying ${params.symbol} created no contract (${hash})`);
  return receipt.contractAddress;
}

/**
 * Deploys test/fixtures/`name`.sol (no constructor arguments) from `walletClient`'s account; returns its
 * address. ContractWallet: a smart account whose `receive` writes storage (a native transfer to it needs more
 * than 21,000 gas); RefusingWallet: one whose `receive` reverts.
 */
export async function deployContractWallet(
  walletClient: WalletClient<Transport, Chain | undefined, Account>,
  publicClient: PublicClient,
  name: 'ContractWallet' | 'RefusingWallet' = 'ContractWallet',
): Promise<Hex> {
  const { abi, bytecode } = await compileFixture(name);
  const hash = await walletClient.deployContract({ abi, bytecode, chain: walletClient.chain ?? null });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (!receipt.contractAddress) throw new Error(`deploying ${name} created no contract (${hash})`);
  return receipt.contractAddress;
}
