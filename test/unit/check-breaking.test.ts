import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { applyAllowList, findBreakingChanges, latestReleased, parseAllowList } from '../../scripts/check-breaking.js';
import { closeResponseSchemas } from '../../server/spec.js';

// The breaking-change gate (make check-breaking): each kind of break is applied to today's spec on its own
// and must be reported as exactly that change; additive changes must pass; a dated entry lets its break through.
/* eslint-disable @typescript-eslint/no-explicit-any */
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const spec: any = parse(fs.readFileSync(path.join(root, 'spec/openapi.yaml'), 'utf8'));
const schemas = (doc: any): any => doc.components.schemas;

/** The identifiers reported when `edit` is applied to a copy of the spec (or of the base, with `onBase`). */
function ids(edit: (doc: any) => void, onBase = false): string[] {
  const changed = structuredClone(spec);
  edit(changed);
  const [base, current] = onBase ? [changed, spec] : [spec, changed];
  return findBreakingChanges(base, current)
    .map((change) => change.id)
    .sort();
}

describe('check-breaking', () => {
  const released = parse(fs.readFileSync(latestReleased(path.join(root, 'spec/released')), 'utf8'));
  it('passes the unchanged spec, and the spec against its released copy: every break since is listed, and only those', () => {
    expect(findBreakingChanges(spec, structuredClone(spec))).to.deep.equal([]);
    const listed = parseAllowList(fs.readFileSync(path.join(root, 'spec/breaking-changes.yaml'), 'utf8'));
    const { refused, unused } = applyAllowList(findBreakingChanges(released, spec), listed);
    expect(refused.map((change) => change.id)).to.deep.equal([]);
    expect(unused).to.deep.equal([]);
  });

  describe('reports each kind of break as exactly that change', () => {
    const cases: [string, (doc: any) => void, string[], boolean?][] = [
      ['an operation removed', (doc) => delete doc.paths['/pairs'].get, ['operation-removed GET /pairs']],
      ['a response status removed', (doc) => delete doc.paths['/health'].get.responses['400'], ['response-status-removed GET /health 400']],
      [
        'a response field removed',
        (doc) => delete schemas(doc).Health.properties.version,
        ['response-field-removed GET /health 200 version'],
      ],
      [
        'a response field no longer required',
        (doc) => (schemas(doc).Health.required = schemas(doc).Health.required.filter((name: string) => name !== 'time')),
        ['response-field-optional GET /health 200 time'],
      ],
      [
        'a response field made nullable',
        (doc) => (schemas(doc).Health.properties.version.type = ['string', 'null']),
        ['response-field-nullable GET /health 200 version'],
      ],
      [
        'a response field type widened',
        (doc) => (schemas(doc).Health.properties.version.type = ['string', 'integer']),
        ['response-type-widened GET /health 200 version'],
      ],
      [
        'a response enum value added',
        (doc) => schemas(doc).NetworkHealth.properties.balance.enum.push('empty'),
        ['response-enum-value-added GET /health 200 checks.networks[].balance empty'],
      ],
      [
        'a response constraint loosened (maxLength raised)',
        (doc) => (schemas(doc).NetworkHealth.properties.reason.maxLength = 5000),
        ['response-constraint-widened GET /health 200 checks.networks[].reason maxLength'],
      ],
      [
        'a response header removed',
        (doc) => delete doc.paths['/health'].get.responses['200'].headers['x-request-id'],
        ['response-header-removed GET /health 200 header.x-request-id'],
      ],
      [
        'a request enum value removed (narrowed)',
        (doc) => (schemas(doc).QuoteRequest.properties.rateType.enum = ['best', 'fixed']),
        ['request-enum-value-removed POST /quotes body.rateType floating'],
      ],
      [
        'a request type narrowed',
        (doc) => (schemas(doc).QuoteRequest.properties.rateType.type = 'integer'),
        ['request-type-narrowed POST /quotes body.rateType'],
      ],
      [
        'a new required request field',
        (doc) => {
          schemas(doc).QuoteRequest.properties.partnerReference = { type: 'string', maxLength: 64 };
          schemas(doc).QuoteRequest.required.push('partnerReference');
        },
        ['request-field-required POST /quotes body.partnerReference'],
      ],
      [
        'an optional request field made required',
        (doc) => schemas(doc).QuoteRequest.required.push('refundMemo'),
        ['request-field-required POST /quotes body.refundMemo'],
      ],
      [
        'a request field removed',
        (doc) => delete schemas(doc).QuoteRequest.properties.refundMemo,
        ['request-field-removed POST /quotes body.refundMemo'],
      ],
      [
        'a request maxLength lowered',
        (doc) => (schemas(doc).QuoteRequest.properties.refundMemo.maxLength = 4),
        ['request-constraint-tightened POST /quotes body.refundMemo maxLength'],
      ],
      [
        'a request pattern changed',
        (doc) => (schemas(doc).QuoteRequest.properties.refundMemo.pattern = '^[0-9]+$'),
        ['request-constraint-tightened POST /quotes body.refundMemo pattern'],
      ],
      [
        'a request minimum raised',
        (doc) => (doc.paths['/swaps'].get.parameters[0].schema.minimum = 10),
        ['request-constraint-tightened GET /swaps query.limit minimum'],
      ],
      [
        'a request maximum lowered',
        (doc) => (doc.paths['/swaps'].get.parameters[0].schema.maximum = 50),
        ['request-constraint-tightened GET /swaps query.limit maximum'],
      ],
      [
        'additionalProperties: false added to a request body',
        (doc) => delete schemas(doc).QuoteRequest.additionalProperties,
        ['request-additional-properties-closed POST /quotes body'],
        true, // the base is the edited copy: today's spec is the one that closes the object
      ],
      [
        'a request default changed',
        (doc) => (schemas(doc).QuoteRequest.properties.rateType.default = 'fixed'),
        ['request-default-changed POST /quotes body.rateType'],
      ],
      [
        'a new required parameter',
        (doc) =>
          doc.paths['/swaps'].get.parameters.push({
            name: 'since',
            in: 'query',
            required: true,
            schema: { type: 'string', maxLength: 40 },
          }),
        ['parameter-required GET /swaps query.since'],
      ],
      ['a parameter removed', (doc) => doc.paths['/swaps'].get.parameters.splice(0, 1), ['parameter-removed GET /swaps query.limit']],
      [
        'a public operation made authenticated',
        (doc) => (doc.paths['/health'].get.security = [{ serviceKeyId: [] }]),
        ['security-requirement-removed GET /health none'],
      ],
      ['a server URL changed', (doc) => (doc.servers[0].url = '/api/v2'), ['server-removed /api/v1']],
      [
        'a webhook payload field removed',
        (doc) => delete schemas(doc).PermanentDepositUpdatedEvent.properties.timestamp,
        ['response-field-removed POST webhook:permanent_deposit.updated body.timestamp'],
      ],
      [
        'a response oneOf variant added',
        (doc) => {
          schemas(doc).PairGuidance.oneOf.push({ $ref: '#/components/schemas/Health' });
          schemas(doc).PairGuidance.discriminator.mapping.health = '#/components/schemas/Health';
        },
        ['response-variant-added GET /pairs 200 (body)<health>'],
      ],
      [
        'null added to a response anyOf',
        (doc) => schemas(doc).SwapUpdatedEvent.properties.data.properties.event.anyOf.pop(),
        ['response-field-nullable POST webhook:swap.updated body.data.event'],
        true, // the base is the edited copy: today's spec is the one that allows null
      ],
      ['a webhook removed', (doc) => delete doc.webhooks['swap.updated'], ['webhook-removed POST webhook:swap.updated']],
    ];
    for (const [name, edit, expected, onBase] of cases) {
      it(name, () => {
        expect(ids(edit, onBase)).to.deep.equal(expected);
      });
    }

    it('a request body made required', () => {
      const released = structuredClone(spec);
      released.paths['/quotes'].post.requestBody.required = false;
      const current = structuredClone(released);
      current.paths['/quotes'].post.requestBody.required = true;
      expect(findBreakingChanges(released, current).map((change) => change.id)).to.deep.equal(['request-body-required POST /quotes']);
    });

    it('a security scheme removed (with the requirements that named it)', () => {
      const found = ids((doc) => delete doc.components.securitySchemes.serviceNonce);
      expect(found).to.include('security-scheme-removed serviceNonce');
      expect(
        found.filter((id) => id !== 'security-scheme-removed serviceNonce').every((id) => id.startsWith('security-requirement-removed ')),
      ).to.equal(true);
    });

    it('prints where and what changed', () => {
      const changed = structuredClone(spec);
      changed.components.schemas.QuoteRequest.properties.refundMemo.maxLength = 4;
      const [change] = findBreakingChanges(spec, changed);
      expect(change.message).to.match(/^request-constraint-tightened POST \/quotes body\.refundMemo maxLength: maxLength \d+ → 4$/);
    });
  });

  describe('lets additive changes through', () => {
    const cases: [string, (doc: any) => void][] = [
      ['a new optional response field', (doc) => (schemas(doc).Health.properties.region = { type: 'string', maxLength: 32 })],
      [
        'a new required response field',
        (doc) => {
          schemas(doc).Health.properties.region = { type: 'string', maxLength: 32 };
          schemas(doc).Health.required.push('region');
        },
      ],
      ['a new operation', (doc) => (doc.paths['/status'] = structuredClone(doc.paths['/health']))],
      ['a new method on a path', (doc) => (doc.paths['/pairs'].head = structuredClone(doc.paths['/pairs'].get))],
      ['a new optional request field', (doc) => (schemas(doc).QuoteRequest.properties.note = { type: 'string', maxLength: 200 })],
      ['a new request enum value', (doc) => schemas(doc).QuoteRequest.properties.rateType.enum.push('spot')],
      ['a request maxLength raised', (doc) => (schemas(doc).QuoteRequest.properties.refundMemo.maxLength = 100000)],
      [
        'a new optional parameter',
        (doc) => doc.paths['/swaps'].get.parameters.push({ name: 'since', in: 'query', schema: { type: 'string', maxLength: 40 } }),
      ],
      ['a new response status', (doc) => (doc.paths['/health'].get.responses['418'] = doc.paths['/health'].get.responses['400'])],
      ['a new webhook event type (the spec promises them)', (doc) => schemas(doc).WebhookEventType.enum.push('route.updated')],
      ['a response enum value removed', (doc) => schemas(doc).NetworkHealth.properties.balance.enum.pop()],
      [
        'descriptions and examples edited',
        (doc) => {
          doc.info.description = 'new words';
          schemas(doc).QuoteRequest.properties.refundMemo.description = 'new words';
          doc.paths['/health'].get.responses['200'].content['application/json'].examples = {};
        },
      ],
    ];
    for (const [name, edit] of cases) it(name, () => expect(ids(edit)).to.deep.equal([]));

    it('response and webhook payload schemas opened (a reader that ignores unknown fields is unaffected)', () => {
      expect(findBreakingChanges(closeResponseSchemas(spec), spec)).to.deep.equal([]);
    });
  });

  describe('the dated list of intended breaks', () => {
    const changed = structuredClone(spec);
    delete changed.components.schemas.Health.properties.version;
    delete changed.paths['/pairs'].get;
    const changes = findBreakingChanges(spec, changed);

    it('lets a listed change through and refuses the unlisted one', () => {
      const entries = parseAllowList(
        stringify({
          changes: [
            {
              date: '2026-11-27',
              change: 'response-field-removed GET /health 200 version',
              reason: 'Replaced by the x-api-version header.',
            },
          ],
        }),
      );
      const { allowed, refused, unused } = applyAllowList(changes, entries);
      expect(allowed.map(([change, entry]) => [change.id, entry.date])).to.deep.equal([
        ['response-field-removed GET /health 200 version', '2026-11-27'],
      ]);
      expect(refused.map((change) => change.id)).to.deep.equal(['operation-removed GET /pairs']);
      expect(unused).to.deep.equal([]);
    });

    it('refuses an entry without a valid date or a reason', () => {
      expect(() => parseAllowList('changes:\n  - {date: 2026-13-01, change: x, reason: y}\n')).to.throw(/date/);
      expect(() => parseAllowList('changes:\n  - {change: x, reason: y}\n')).to.throw(/date/);
      expect(() => parseAllowList("changes:\n  - {date: '2026-11-27', change: x}\n")).to.throw(/reason/);
      expect(parseAllowList(fs.readFileSync(path.join(root, 'spec/breaking-changes.yaml'), 'utf8'))).to.be.an('array');
    });

    it('the command exits 1 on an unlisted break and 0 once it is listed', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-breaking-'));
      try {
        fs.writeFileSync(path.join(dir, 'new.yaml'), stringify(changed));
        const run = (allow: string) =>
          promisify(execFile)(
            process.execPath,
            ['--import', 'tsx', 'scripts/check-breaking.ts', '--spec', path.join(dir, 'new.yaml'), '--allow', allow],
            { cwd: root },
          );
        const failure = await run(path.join(dir, 'none.yaml')).then(
          () => undefined,
          (err: { code: number; stderr: string }) => err,
        );
        expect(failure?.code).to.equal(1);
        expect(failure?.stderr).to.contain('response-field-removed GET /health 200 version: no longer sent');
        expect(failure?.stderr).to.contain('operation-removed GET /pairs: operation removed');
        // The command compares with the released copy: the spec's own listed breaks since are in it too.
        const sinceRelease = findBreakingChanges(released, changed);
        expect(sinceRelease.map((change) => change.id)).to.include.members(changes.map((change) => change.id));
        fs.writeFileSync(
          path.join(dir, 'allow.yaml'),
          stringify({ changes: sinceRelease.map((change) => ({ date: '2026-11-27', change: change.id, reason: 'test' })) }),
        );
        const { stdout } = await run(path.join(dir, 'allow.yaml'));
        expect(stdout).to.contain('allowed (2026-11-27');
        expect(stdout).to.contain(`${sinceRelease.length} breaking change(s), each listed with its date`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
