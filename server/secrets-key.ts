/**
 * Resolves the key that encrypts secrets at rest: SECRETS_KEY when configured; without it, where the
 * configuration allows the fallback (sandbox), a key generated once into DATA_DIR/secrets.key (mode 0600)
 * and reused on every start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './config.js';

/** The 32-byte secrets key for this configuration; throws when SECRETS_KEY is missing and there is no fallback. */
export function resolveSecretsKey(config: Pick<Config, 'secretsKey' | 'secretsKeyFallback' | 'dataDir'>): Buffer {
  if (config.secretsKey) return Buffer.from(config.secretsKey, 'hex');
  if (!config.secretsKeyFallback) throw new Error('SECRETS_KEY is required outside sandbox mode');
  const file = path.join(config.dataDir, 'secrets.key');
  if (fs.existsSync(file)) {
    const hex = fs.readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} does not hold a 64-hex-character key`);
    return Buffer.from(hex, 'hex');
  }
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  fs.writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/**
 * Why `file` is not private to the user this process runs as: its group or other users may read, write or run
 * it (any of mode 0077), or another user owns it (and could open it up again). Undefined when it is private, or
 * when it cannot be inspected (the read that follows says why). The one rule for every file holding a key:
 * DATA_DIR/secrets.key here, and the EVM key files (production-config.ts readHotWalletKey, readDepositKey).
 */
export function privateFileProblem(file: string): { kind: 'mode' | 'owner'; problem: string; fix: string } | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    return {
      kind: 'mode',
      problem: `is accessible to other users (mode ${mode.toString(8).padStart(4, '0')})`,
      fix: `Run: chmod 600 ${file}`,
    };
  }
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    return {
      kind: 'owner',
      problem: `is owned by uid ${stat.uid}, not by the user this service runs as (uid ${uid}), who alone must hold it`,
      fix: `Run: chown ${uid} ${file} && chmod 600 ${file}`,
    };
  }
  return undefined;
}

/**
 * A warning when the generated key file (DATA_DIR/secrets.key) can be read or written by other users of the
 * machine (privateFileProblem); undefined when it is private or not used.
 */
export function secretsKeyFileWarning(config: Pick<Config, 'secretsKey' | 'dataDir' | 'databaseUrl'>): string | undefined {
  if (config.secretsKey) return undefined;
  const file = path.join(config.dataDir, 'secrets.key');
  const found = privateFileProblem(file);
  if (!found) return undefined;
  // The embedded database takes group and world access off DATA_DIR's files (not another owner).
  const fix =
    config.databaseUrl || found.kind === 'owner' ? found.fix : 'The embedded database now makes DATA_DIR private (0700, files 0600)';
  return `${file} ${found.problem}; anyone who read it can open every partner secret, so on a shared machine issue new partner secrets. ${fix}.`;
}
