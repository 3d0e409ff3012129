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
 * A warning when the generated key file (DATA_DIR/secrets.key) can be read or written by other users of the
 * machine; undefined when it is private or not used.
 */
export function secretsKeyFileWarning(config: Pick<Config, 'secretsKey' | 'dataDir' | 'databaseUrl'>): string | undefined {
  if (config.secretsKey) return undefined;
  const file = path.join(config.dataDir, 'secrets.key');
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  const fix = config.databaseUrl ? `Run: chmod 600 ${file}` : 'The embedded database now makes DATA_DIR private (0700, files 0600)';
  return `${file} is accessible to other users (mode ${mode.toString(8).padStart(4, '0')}); anyone who read it can open every partner secret, so on a shared machine issue new partner secrets. ${fix}.`;
}
