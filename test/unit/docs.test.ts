import fs from 'node:fs';
import { expect } from 'chai';
import { signingVector } from '../support/signing-vector.js';

// The worked signing example is published twice (docs/signing.md and the spec); both copies must match the vector the tests check.
const root = new URL('../../', import.meta.url);
const vector = signingVector;
const signingPage = fs.readFileSync(new URL('docs/signing.md', root), 'utf8');
const spec = JSON.parse(fs.readFileSync(new URL('generated/openapi.json', root), 'utf8'));
const schemeDescription: string = spec.components.securitySchemes.serviceSignature.description;

for (const [name, text] of [
  ['docs/signing.md', signingPage],
  ['the spec (serviceSignature)', schemeDescription],
] as const) {
  describe(`the worked signing example in ${name}`, () => {
    it('shows the canonical text of the vector', () => {
      expect(text).to.contain(`\`\`\`\n${vector.canonicalText}\n\`\`\``);
    });
    it('shows the signature, secret, body and inputs of the vector', () => {
      for (const value of [vector.signatureHeader, vector.secret, vector.body, vector.nonce, vector.keyId, vector.timestamp])
        expect(text).to.contain(value);
    });
  });
}
