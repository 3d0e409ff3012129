/**
 * Encryption at rest for partner and webhook secrets: AES-256-GCM under SECRETS_KEY, stored as
 * `v2.<iv>.<tag>.<ciphertext>` (base64url parts). Each value is bound to its owner through the associated
 * data (for example `partner-secret:<key id>`), so a sealed value copied into another row does not open
 * there. The plaintext never reaches the database.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v2';
/** The first format, sealed without associated data; opened only to re-seal it (migration 0002). */
const UNBOUND_VERSION = 'v1';
const IV_BYTES = 12;

/** Seals and opens secrets with one 32-byte key, each bound to the owner it was sealed for. */
export interface SecretBox {
  /** Seals `plaintext` for `owner` (e.g. `partner-secret:pk_live_7Hq2Xv`). */
  seal(plaintext: string, owner: string): string;
  /** Throws SecretUnreadableError when the value was sealed with another key, for another owner, or tampered with. */
  open(sealed: string, owner: string): string;
  /** Opens a value in the first format, which names no owner; only the migration that re-seals them uses it. */
  openUnbound(sealed: string): string;
}

/** A sealed value that does not open with this key for this owner. */
export class SecretUnreadableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SecretUnreadableError';
  }
}

/** The owner a partner's signing secret is bound to. */
export const partnerSecretOwner = (keyId: string): string => `partner-secret:${keyId}`;

/** Whether `sealed` is in the first format, sealed without an owner. */
export const isUnboundSealed = (sealed: string): boolean => sealed.startsWith(`${UNBOUND_VERSION}.`);

/** Creates a SecretBox over a 32-byte key. */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes');
  const decrypt = (sealed: string, version: string, owner: string | undefined): string => {
    const [given, iv, tag, ciphertext, ...rest] = sealed.split('.');
    if (given !== version || !iv || !tag || ciphertext === undefined || rest.length > 0) {
      throw new SecretUnreadableError(`Not a sealed secret in format ${version}`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      if (owner !== undefined) decipher.setAAD(Buffer.from(owner, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch (err) {
      throw new SecretUnreadableError('The sealed secret does not open with this SECRETS_KEY for this owner', { cause: err });
    }
  };
  return {
    seal(plaintext, owner) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(owner, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join('.');
    },
    open: (sealed, owner) => decrypt(sealed, VERSION, owner),
    openUnbound: (sealed) => decrypt(sealed, UNBOUND_VERSION, undefined),
  };
}
