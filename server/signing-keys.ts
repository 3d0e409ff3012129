/**
 * The keys that sign deposit instructions (docs/signing.md#signed-deposit-instructions). The current key comes
 * from SIGNING_KEY_FILE (a PKCS#8 PEM private key, Ed25519 or P-256, private to this user), required in
 * production; without it, where the configuration allows the fallback (sandbox), a key generated once into
 * DATA_DIR/signing-key.pem (mode 0600) and reused on every start. SIGNING_PREVIOUS_KEYS_FILE may list the public
 * keys (SPKI PEM blocks) of earlier keys: `GET /signing-keys` keeps serving them, so what they signed before a
 * rotation still verifies after it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Config } from './config.js';
import {
  algorithmOf,
  createInstructionsSigner,
  publicJwkOf,
  SigningKeyError,
  type InstructionsSigner,
  type SigningKeySet,
} from './domain/signed-instructions.js';
import { privateFileProblem } from './secrets-key.js';

/** The current signer and the key set `GET /signing-keys` serves. */
export interface SigningKeys {
  signer: InstructionsSigner;
  /** The current key first, then each previous one (a key listed twice appears once). */
  keySet: SigningKeySet;
}

/** The file the sandbox generates its signing key into, in DATA_DIR. */
export const GENERATED_SIGNING_KEY_FILE = 'signing-key.pem';

/**
 * The signing keys of this configuration; throws when SIGNING_KEY_FILE is missing and there is no fallback, or
 * a file is unreadable or holds no usable key (loadConfig has reported those already in production).
 */
export function resolveSigningKeys(
  config: Pick<Config, 'signingKeyFile' | 'signingPreviousKeysFile' | 'signingKeyFallback' | 'dataDir'>,
): SigningKeys {
  const previous = config.signingPreviousKeysFile ? readPreviousSigningKeys(config.signingPreviousKeysFile) : [];
  if (config.signingKeyFile) return signingKeysOf(readSigningKey(config.signingKeyFile), previous);
  if (!config.signingKeyFallback) throw new Error('SIGNING_KEY_FILE is required outside sandbox mode');
  const file = path.join(config.dataDir, GENERATED_SIGNING_KEY_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, generateSigningKeyPem(), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process of the same DATA_DIR wrote it first: use that one.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return signingKeysOf(readSigningKey(file), previous);
}

/** The signing keys over `privateKey`, with the public `previous` keys still served. */
export function signingKeysOf(privateKey: KeyObject, previous: readonly KeyObject[] = []): SigningKeys {
  const keys = [privateKey, ...previous].map(publicJwkOf);
  return {
    signer: createInstructionsSigner(privateKey),
    keySet: { keys: keys.filter((key, i) => keys.findIndex((k) => k.kid === key.kid) === i) },
  };
}

/** A new Ed25519 private key as PKCS#8 PEM (what the sandbox generates; `openssl genpkey -algorithm ed25519` makes the same). */
export function generateSigningKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
}

/**
 * The private key in `file`: a PKCS#8 PEM Ed25519 or P-256 key, in a file private to this user (as every key
 * file, secrets-key.ts privateFileProblem). Throws with a message that names the problem and never the key.
 */
export function readSigningKey(file: string): KeyObject {
  const found = privateFileProblem(file);
  if (found)
    throw new SigningKeyError(
      `${found.problem}: anyone who can read it can sign deposit addresses as the service. ${found.fix}, and start again`,
    );
  const text = readText(file);
  if (!/-----BEGIN PRIVATE KEY-----/.test(text)) {
    throw new SigningKeyError(
      'must hold a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY-----), e.g. from: openssl genpkey -algorithm ed25519 -out signing-key.pem',
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: text, format: 'pem' });
  } catch (err) {
    throw new SigningKeyError(`holds a PEM private key that does not parse (${(err as Error).message})`);
  }
  algorithmOf(key);
  return key;
}

/**
 * The public keys in `file`: one or more SPKI PEM blocks (-----BEGIN PUBLIC KEY-----), each Ed25519 or P-256.
 * A private key is refused: the earlier key's public half is all verification needs (openssl pkey -pubout).
 */
export function readPreviousSigningKeys(file: string): KeyObject[] {
  const text = readText(file);
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    throw new SigningKeyError(
      'holds a private key; list only the public keys of earlier signing keys (openssl pkey -in old-key.pem -pubout >> previous-keys.pem)',
    );
  }
  const blocks = text.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? [];
  if (blocks.length === 0) throw new SigningKeyError('must hold one or more PEM public keys (-----BEGIN PUBLIC KEY-----)');
  return blocks.map((block, i) => {
    let key: KeyObject;
    try {
      key = createPublicKey({ key: block, format: 'pem' });
    } catch (err) {
      throw new SigningKeyError(`public key ${i + 1} does not parse (${(err as Error).message})`);
    }
    try {
      algorithmOf(key);
    } catch (err) {
      throw new SigningKeyError(`public key ${i + 1} ${(err as Error).message}`);
    }
    return key;
  });
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SigningKeyError(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}
