import fs from 'node:fs';
import { expect } from 'chai';
import { closeResponseSchemas, loadApiDocument, messageObjectSchemas } from '../../server/spec.js';

// The published contract leaves what the service sends open (v1 adds response fields; clients ignore the
// unknown ones) and keeps what it accepts closed; the service checks its own responses against a closed copy.
/* eslint-disable @typescript-eslint/no-explicit-any */
const { document } = loadApiDocument();
const api: any = document;
const ok = (at: string) => ({ content: { 'application/json': { schema: { $ref: at } } } });

describe('spec', () => {
  describe('the published contract', () => {
    it('leaves every object schema of a response or webhook payload open', () => {
      const closed = messageObjectSchemas(document, 'sent').filter(({ schema }) => schema.additionalProperties === false);
      expect(closed.map(({ at }) => at)).to.deep.equal([]);
    });

    it('keeps every object schema of a request body closed', () => {
      const open = messageObjectSchemas(document, 'received').filter(({ schema }) => schema.additionalProperties !== false);
      expect(open.map(({ at }) => at)).to.deep.equal([]);
      expect(messageObjectSchemas(document, 'received')).to.have.length.above(10);
    });

    it('says so in its versioning section', () => {
      expect(api.info.description).to.match(/additionalProperties/);
    });
  });

  describe('closeResponseSchemas(document)', () => {
    const closed: any = closeResponseSchemas(document);

    it('closes every object schema the service sends, however deep and however reached', () => {
      const schemas = closed.components.schemas;
      expect(schemas.Health.additionalProperties).to.equal(false);
      expect(schemas.Health.properties.checks.properties.database.additionalProperties).to.equal(false);
      expect(schemas.Error.additionalProperties).to.equal(false); // through components.responses
      expect(schemas.CompactPairGuidance.additionalProperties).to.equal(false); // through oneOf
      expect(schemas.SwapUpdatedEvent.properties.data.additionalProperties).to.equal(false); // a webhook payload
      const left = messageObjectSchemas(closed, 'sent').filter(({ schema }) => schema.additionalProperties === undefined);
      expect(left.map(({ at }) => at)).to.deep.equal([]);
    });

    it('keeps a schema that says its fields are open (the served OpenAPI document, Error.details)', () => {
      const served = closed.paths['/openapi.json'].get.responses['200'].content['application/json'].schema;
      expect(served.additionalProperties).to.equal(true);
      expect(closed.components.schemas.Error.properties.error.properties.details.additionalProperties).to.not.equal(false);
    });

    it('leaves the document it is given unchanged', () => {
      const before = fs.readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8');
      closeResponseSchemas(document);
      expect(document).to.deep.equal(JSON.parse(before));
    });

    it('leaves if/then/else alone: they constrain part of a value another schema describes', () => {
      const conditional: any = closeResponseSchemas({
        paths: { '/x': { get: { responses: { '200': ok('#/components/schemas/X') } } } },
        components: {
          schemas: {
            X: {
              type: 'object',
              properties: { kind: { type: 'string' }, address: { type: 'string' } },
              if: { properties: { kind: { const: 'address' } } },
              then: { required: ['address'] },
            },
          },
        },
      });
      expect(conditional.components.schemas.X.additionalProperties).to.equal(false);
      expect(conditional.components.schemas.X.if).to.deep.equal({ properties: { kind: { const: 'address' } } });
    });

    it('refuses allOf, which additionalProperties cannot close', () => {
      const composed = {
        paths: { '/x': { get: { responses: { '200': ok('#/components/schemas/X') } } } },
        components: { schemas: { X: { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }] } } },
      };
      expect(() => closeResponseSchemas(composed)).to.throw(/allOf at GET \/x 200 application\/json/);
    });
  });
});
