/** The published worked example of the signing protocol (test/fixtures/signing-vector.json) and its inputs. */
import fs from 'node:fs';

/** The vector as published in the README and the spec, and a webhook delivery (webhook* fields). */
export const signingVector = JSON.parse(fs.readFileSync(new URL('../fixtures/signing-vector.json', import.meta.url), 'utf8')) as {
  secret: string;
  keyId: string;
  user: string;
  audience: string;
  method: string;
  pathAndQuery: string;
  timestamp: string;
  nonce: string;
  body: string;
  canonicalText: string;
  signatureHeader: string;
  /** A webhook delivery signed by server/domain/webhook-signing.ts: the `whsec_` secret, headers and raw body. */
  webhookSecret: string;
  webhookId: string;
  webhookTimestamp: string;
  webhookBody: string;
  /** The `webhook-signature` header: `v1,<base64>`. */
  webhookSignature: string;
};

/** The vector as the input both signers take: every field, with the body as bytes. */
export const signingVectorInput = {
  audience: signingVector.audience,
  method: signingVector.method,
  pathAndQuery: signingVector.pathAndQuery,
  timestamp: signingVector.timestamp,
  nonce: signingVector.nonce,
  keyId: signingVector.keyId,
  user: signingVector.user,
  body: new TextEncoder().encode(signingVector.body),
};
