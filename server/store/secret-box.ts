/**
 * Encryption at rest for partner and webhook secrets: AES-256-GCM under SECRETS_KEY, stored as
 * `v1.<iv>.<tag>.<ciphertext>` (base64url parts). The plaintext never reaches the database.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;

/** Seals and opens secrets with one 32-byte key. */
export interface SecretBox {
  seal(plaintext: string): string;
  /** Throws when the value was not sealed with this key or was tampered with. */
  open(sealed: string): string;
}

/** Creates a SecretBox over a 32-byte key. */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes');
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), ciphertext]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('Not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
