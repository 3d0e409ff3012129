/**
 * Contracts that pay native value without a transaction of its own (test/fixtures/EthForwarder.sol and
 * SelfDestructing.sol), compiled as test/support/erc20.ts compiles its fixtures, and the payments they make:
 * an internal call (as an exchange's withdrawal contract or a contract wallet pays) and a SELFDESTRUCT. No mocha
 * here.
 */
import { getAddress, type Account, type Chain, type Hex, type PublicClient, type Transport, type WalletClient } from 'viem';
import { compileFixture } from './erc20.js';

type Wallet = WalletClient<Transport, Chain | undefined, Account>;

async function deploy(wallet: Wallet, reader: PublicClient, name: string, value = 0n): Promise<Hex> {
  const { abi, bytecode } = await compileFixture(name);
  const hash = await wallet.deployContract({ abi, bytecode, chain: wallet.chain ?? null, value });
  const receipt = await reader.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (!receipt.contractAddress) throw new Error(`deploying ${name} created no contract (${hash})`);
  return getAddress(receipt.contractAddress);
}

/** A deployed EthForwarder: each call pays its value on to other addresses by internal calls. */
export interface EthForwarder {
  address: Hex;
  /** Sends `value` wei to `to` through the contract; resolves once mined, with the transaction hash. */
  forward(to: string, value: bigint): Promise<Hex>;
  /** Pays `to` by an internal call and then reverts: nothing moves on the chain. */
  forwardAndRevert(to: string, value: bigint): Promise<Hex>;
  /** Pays half of `value` to `a` and the rest to `b`, in one transaction. */
  split(a: string, b: string, value: bigint): Promise<Hex>;
}

/** Deploys an EthForwarder from `wallet`'s account (its address checksummed, as the watcher reports senders). */
export async function deployForwarder(wallet: Wallet, reader: PublicClient): Promise<EthForwarder> {
  const address = await deploy(wallet, reader, 'EthForwarder');
  const { abi } = await compileFixture('EthForwarder');
  const call = async (functionName: string, args: string[], value: bigint, gas?: bigint) => {
    const hash = await wallet.writeContract({ address, abi, functionName, args, value, chain: wallet.chain ?? null, gas });
    await reader.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    return hash;
  };
  return {
    address,
    forward: (to, value) => call('forward', [to], value),
    // A fixed gas limit: an estimate of a call that reverts fails before it is sent.
    forwardAndRevert: (to, value) => call('forwardAndRevert', [to], value, 200_000n),
    split: (a, b, value) => call('split', [a, b], value),
  };
}

/**
 * Deploys a SelfDestructing contract holding `value` wei, and has it SELFDESTRUCT to `to`; resolves once mined
 * with the contract's address and the hash of the transaction that destroyed it.
 */
export async function selfDestructTo(
  wallet: Wallet,
  reader: PublicClient,
  to: string,
  value: bigint,
): Promise<{ contract: Hex; txHash: Hex }> {
  const contract = await deploy(wallet, reader, 'SelfDestructing', value);
  const { abi } = await compileFixture('SelfDestructing');
  const txHash = await wallet.writeContract({ address: contract, abi, functionName: 'destroy', args: [to], chain: wallet.chain ?? null });
  await reader.waitForTransactionReceipt({ hash: txHash, pollingInterval: 50 });
  return { contract, txHash };
}
