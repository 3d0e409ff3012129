/**
 * The breaking-change gate (`make check-breaking`): compares spec/openapi.yaml with the last released
 * contract (the highest spec/released/openapi-<version>.yaml) and exits 1 on any breaking change that is not
 * listed, with a date and a reason, in spec/breaking-changes.yaml.
 *
 * Every change has a stable identifier, `<kind> <operation> <location>[ <detail>]`, e.g.
 * `response-field-removed GET /swaps/{id} 200 order.foo`; an entry of spec/breaking-changes.yaml whose
 * `change` is that identifier lets exactly that change through.
 *
 * The rules follow the direction of each message. What the service reads (request bodies, parameters, and
 * the partner's answers to webhooks) breaks when it accepts less: a removed field, enum value or type, a
 * new required field or parameter, a tightened constraint (maxLength/maximum lowered, minLength/minimum
 * raised, pattern/format changed, additionalProperties: false added) or a changed default. What the partner
 * reads (responses and webhook payloads) breaks when it may contain something the old contract ruled out
 * or lacks something the old contract promised: a removed status, field or header, a field no longer
 * required, a new type (null included), a new enum value, a loosened constraint.
 *
 * New enum values in responses count: the spec's versioning section (info.description, "Versioning")
 * promises that within v1 only new operations, optional request fields, response fields, error codes (a
 * plain string, not an enum) and webhook event types are added, not that enums are open, so a reader may
 * switch over one. The one enum it does promise to grow is the webhook event type (OPEN_ENUMS).
 *
 * Composite schemas: oneOf/anyOf variants are paired by discriminator mapping key, by $ref, or by type;
 * allOf and if/then/else are compared as a whole (any change to them is reported as
 * `*-composition-changed`, to be reviewed and listed when it is intended).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };
type Doc = Obj;

/** Who reads the message: `request` = the service validates it; `response` = the partner reads it. */
type Side = 'request' | 'response';

export interface BreakingChange {
  /** Stable identifier; what spec/breaking-changes.yaml lists. */
  id: string;
  /** The identifier and what changed, for people. */
  message: string;
}

export interface AllowEntry {
  date: string;
  change: string;
  reason: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Resolves a local JSON pointer (`#/components/...`). */
function pointer(doc: Doc, ref: string): Json | undefined {
  if (!ref.startsWith('#')) throw new Error(`only local $refs are supported: ${ref}`);
  let node: Json | undefined = doc;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObj(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined;
  }
  if (node === undefined) throw new Error(`unresolved $ref: ${ref}`);
  return node;
}

/** Follows $ref chains; siblings of a $ref (3.1 allows them) are laid over its target. Returns the refs seen. */
function deref(doc: Doc, node: Json | undefined): { node: Obj; refs: string[] } {
  const refs: string[] = [];
  let current: Json | undefined = node;
  let merged: Obj = {};
  while (isObj(current) && typeof current.$ref === 'string') {
    if (refs.includes(current.$ref)) throw new Error(`circular $ref: ${current.$ref}`);
    refs.push(current.$ref);
    const { $ref, ...siblings } = current;
    merged = { ...siblings, ...merged };
    current = pointer(doc, $ref as string);
  }
  return { node: { ...(isObj(current) ? current : {}), ...merged }, refs };
}

/** A canonical JSON text (sorted keys) with every $ref resolved; for whole-subschema comparisons. */
function canonical(doc: Doc, node: Json | undefined, seen: string[] = []): string {
  if (Array.isArray(node)) return `[${node.map((item) => canonical(doc, item, seen)).join(',')}]`;
  if (!isObj(node)) return JSON.stringify(node ?? null);
  if (typeof node.$ref === 'string') {
    if (seen.includes(node.$ref)) return JSON.stringify({ $ref: node.$ref });
    const { node: target, refs } = deref(doc, node);
    return canonical(doc, target, [...seen, ...refs]);
  }
  const keys = Object.keys(node)
    .filter((key) => !['description', 'summary', 'example', 'examples', 'title', '$comment'].includes(key))
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(doc, node[key], seen)}`).join(',')}}`;
}

function typeSet(schema: Obj): Set<string> | undefined {
  if (schema.type === undefined) return undefined;
  return new Set((Array.isArray(schema.type) ? schema.type : [schema.type]).map(String));
}
const covers = (types: Set<string>, type: string): boolean => types.has(type) || (type === 'integer' && types.has('number'));
const showTypes = (types: Set<string> | undefined): string => (types ? [...types].join('|') : 'any');

function enumValues(schema: Obj): Json[] | undefined {
  if ('const' in schema) return [schema.const];
  return Array.isArray(schema.enum) ? schema.enum : undefined;
}
const show = (value: Json): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** Enums the spec promises to extend within v1 ("new webhook event types"): a value added to them is additive. */
const OPEN_ENUMS = new Set(['#/components/schemas/WebhookEventType']);

const UPPER = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'];
const LOWER = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'];
const EXACT = ['pattern', 'format', 'multipleOf', 'uniqueItems', 'contentEncoding', 'contentMediaType'];

class Comparison {
  readonly changes: BreakingChange[] = [];

  constructor(
    readonly base: Doc,
    readonly current: Doc,
  ) {}

  report(kind: string, where: string, detail: string): void {
    const id = `${kind} ${where}`;
    if (!this.changes.some((change) => change.id === id)) this.changes.push({ id, message: `${id}: ${detail}` });
  }

  /**
   * Compares two schemas. `head` names the message (`POST /swaps`, `GET /swaps/{id} 200`), `field` the place in
   * it (`body.refundAddress`, `query.limit`, `order.status`; empty for a response body's root).
   */
  schema(oldNode: Json | undefined, newNode: Json | undefined, side: Side, head: string, field: string, stack: string[] = []): void {
    const where = `${head} ${field || '(body)'}`;
    const child = (name: string): string => (field ? `${field}.${name}` : name);
    const { node: before, refs: oldRefs } = deref(this.base, oldNode);
    const { node: after, refs: newRefs } = deref(this.current, newNode);
    const pair = `${oldRefs.join('>')}|${newRefs.join('>')}`;
    if ((oldRefs.length || newRefs.length) && stack.includes(pair)) return; // recursive schema: compared already
    const inner = [...stack, pair];

    // Types.
    const oldTypes = typeSet(before);
    const newTypes = typeSet(after);
    if (side === 'request') {
      const lost = !newTypes ? [] : !oldTypes ? ['any'] : [...oldTypes].filter((type) => !covers(newTypes, type));
      if (lost.length) this.report('request-type-narrowed', where, `accepted type ${showTypes(oldTypes)} → ${showTypes(newTypes)}`);
    } else {
      const gained = !oldTypes ? [] : !newTypes ? ['any'] : [...newTypes].filter((type) => !covers(oldTypes, type));
      if (gained.length === 1 && gained[0] === 'null')
        this.report('response-field-nullable', where, `may now be null (type ${showTypes(oldTypes)} → ${showTypes(newTypes)})`);
      else if (gained.length) this.report('response-type-widened', where, `type ${showTypes(oldTypes)} → ${showTypes(newTypes)}`);
    }

    // Enums (const counts as a one-value enum).
    const oldEnum = enumValues(before);
    const newEnum = enumValues(after);
    const has = (list: Json[], value: Json): boolean => list.some((item) => JSON.stringify(item) === JSON.stringify(value));
    if (side === 'request' && newEnum) {
      if (!oldEnum) this.report('request-enum-added', where, `now restricted to ${newEnum.map(show).join(', ')}`);
      else
        for (const value of oldEnum.filter((item) => !has(newEnum, item)))
          this.report('request-enum-value-removed', `${where} ${show(value)}`, 'no longer accepted');
    }
    if (side === 'response' && oldEnum && !newRefs.some((ref) => OPEN_ENUMS.has(ref))) {
      if (!newEnum) this.report('response-enum-removed', where, `no longer limited to ${oldEnum.map(show).join(', ')}`);
      else
        for (const value of newEnum.filter((item) => !has(oldEnum, item)))
          this.report('response-enum-value-added', `${where} ${show(value)}`, 'a value readers of the released contract do not know');
    }

    // Constraints.
    for (const key of [...UPPER, ...LOWER, ...EXACT]) {
      const o = before[key];
      const n = after[key];
      if (JSON.stringify(o) === JSON.stringify(n)) continue;
      const upper = UPPER.includes(key);
      const lower = LOWER.includes(key);
      const num = (value: Json | undefined): number | undefined => (typeof value === 'number' ? value : undefined);
      const tightened =
        n !== undefined && (o === undefined || (upper && num(n)! < num(o)!) || (lower && num(n)! > num(o)!) || (!upper && !lower));
      const widened =
        o !== undefined && (n === undefined || (upper && num(n)! > num(o)!) || (lower && num(n)! < num(o)!) || (!upper && !lower));
      const detail = `${key} ${o === undefined ? '(none)' : show(o)} → ${n === undefined ? '(none)' : show(n)}`;
      if (side === 'request' && tightened) this.report('request-constraint-tightened', `${where} ${key}`, detail);
      if (side === 'response' && widened) this.report('response-constraint-widened', `${where} ${key}`, detail);
    }

    // A request default is what the service assumes for an omitted field: changing it changes old requests' meaning.
    if (side === 'request' && 'default' in before && JSON.stringify(before.default) !== JSON.stringify(after.default)) {
      this.report(
        'request-default-changed',
        where,
        `default ${show(before.default)} → ${'default' in after ? show(after.default as Json) : '(none)'}`,
      );
    }

    // Object properties.
    const oldProps = isObj(before.properties) ? before.properties : {};
    const newProps = isObj(after.properties) ? after.properties : {};
    const oldRequired = new Set(Array.isArray(before.required) ? before.required.map(String) : []);
    const newRequired = new Set(Array.isArray(after.required) ? after.required.map(String) : []);
    // A readOnly field is not part of a request, a writeOnly one not part of a response (as released).
    const skipped = (prop: Json | undefined): boolean => {
      const resolved = prop === undefined ? undefined : deref(this.base, prop).node;
      return !!resolved && (side === 'request' ? resolved.readOnly === true : resolved.writeOnly === true);
    };
    for (const name of Object.keys(oldProps)) {
      if (skipped(oldProps[name])) continue;
      if (!(name in newProps)) {
        this.report(`${side}-field-removed`, `${head} ${child(name)}`, side === 'request' ? 'no longer accepted' : 'no longer sent');
        continue;
      }
      if (side === 'response' && oldRequired.has(name) && !newRequired.has(name))
        this.report('response-field-optional', `${head} ${child(name)}`, 'no longer required');
      this.schema(oldProps[name], newProps[name], side, head, child(name), inner);
    }
    if (side === 'request') {
      for (const name of newRequired) {
        if (!oldRequired.has(name))
          this.report('request-field-required', `${head} ${child(name)}`, name in oldProps ? 'now required' : 'a new required field');
      }
      if (after.additionalProperties === false && before.additionalProperties !== false) {
        this.report('request-additional-properties-closed', where, 'fields not listed are now refused (additionalProperties: false)');
      }
    }
    if (isObj(before.additionalProperties) && isObj(after.additionalProperties)) {
      this.schema(before.additionalProperties, after.additionalProperties, side, head, child('*'), inner);
    }

    // Arrays.
    if (before.items !== undefined && after.items !== undefined) this.schema(before.items, after.items, side, head, `${field}[]`, inner);

    // oneOf / anyOf.
    for (const key of ['oneOf', 'anyOf'] as const) this.variants(before, after, key, side, head, field, inner);

    // allOf, if/then/else, not: compared whole.
    for (const key of ['allOf', 'if', 'then', 'else', 'not', 'dependentRequired', 'dependentSchemas', 'patternProperties', 'prefixItems']) {
      if (canonical(this.base, before[key]) !== canonical(this.current, after[key])) {
        this.report(
          `${side}-composition-changed`,
          `${where} ${key}`,
          `${key} differs from the released contract; review it and list it when intended`,
        );
      }
    }
  }

  private variants(before: Obj, after: Obj, key: 'oneOf' | 'anyOf', side: Side, head: string, field: string, stack: string[]): void {
    const where = `${head} ${field || '(body)'}`;
    const oldList = Array.isArray(before[key]) ? before[key] : [];
    const newList = Array.isArray(after[key]) ? after[key] : [];
    if (!oldList.length && !newList.length) return;
    const label = (schema: Obj, doc: Doc, variant: Json): string => {
      const mapping = isObj(schema.discriminator) && isObj(schema.discriminator.mapping) ? schema.discriminator.mapping : {};
      if (isObj(variant) && typeof variant.$ref === 'string') {
        const mapped = Object.keys(mapping).find((name) => mapping[name] === variant.$ref);
        return mapped ?? variant.$ref.split('/').pop()!;
      }
      return `type:${showTypes(typeSet(deref(doc, variant).node))}`;
    };
    const oldByLabel = new Map(oldList.map((variant) => [label(before, this.base, variant), variant]));
    const newByLabel = new Map(newList.map((variant) => [label(after, this.current, variant), variant]));
    if (oldList.length && !newList.length && side === 'response') this.report('response-type-widened', `${where} ${key}`, `${key} removed`);
    if (!oldList.length && newList.length && side === 'request') this.report('request-type-narrowed', `${where} ${key}`, `${key} added`);
    for (const [name, variant] of oldByLabel) {
      const match = newByLabel.get(name);
      if (match !== undefined) this.schema(variant, match, side, head, `${field}<${name}>`, stack);
      else if (side === 'request' && newList.length)
        this.report('request-variant-removed', `${where}<${name}>`, `${key} variant no longer accepted`);
    }
    if (side === 'response' && oldList.length) {
      for (const name of newByLabel.keys()) {
        if (oldByLabel.has(name)) continue;
        if (name === 'type:null') this.report('response-field-nullable', where, `may now be null (${key} variant added)`);
        else this.report('response-variant-added', `${where}<${name}>`, `a ${key} variant readers of the released contract do not know`);
      }
    }
  }

  parameters(oldOp: Obj, oldItem: Obj, newOp: Obj, newItem: Obj, op: string, side: Side): void {
    const collect = (doc: Doc, item: Obj, operation: Obj): Map<string, Obj> => {
      const map = new Map<string, Obj>();
      for (const list of [item.parameters, operation.parameters]) {
        for (const raw of Array.isArray(list) ? list : []) {
          const param = deref(doc, raw).node;
          const inside = String(param.in);
          map.set(`${inside}.${inside === 'header' ? String(param.name).toLowerCase() : String(param.name)}`, param);
        }
      }
      return map;
    };
    const before = collect(this.base, oldItem, oldOp);
    const after = collect(this.current, newItem, newOp);
    for (const [name, param] of before) {
      const match = after.get(name);
      if (!match) {
        this.report('parameter-removed', `${op} ${name}`, side === 'request' ? 'no longer accepted' : 'no longer sent');
        continue;
      }
      if (side === 'request' && match.required === true && param.required !== true)
        this.report('parameter-required', `${op} ${name}`, 'now required');
      if (side === 'response' && param.required === true && match.required !== true)
        this.report('parameter-optional', `${op} ${name}`, 'no longer always sent');
      this.schema(param.schema, match.schema, side, op, name);
    }
    if (side === 'request') {
      for (const [name, param] of after) {
        if (!before.has(name) && param.required === true) this.report('parameter-required', `${op} ${name}`, 'a new required parameter');
      }
    }
  }

  body(oldBody: Json | undefined, newBody: Json | undefined, op: string, side: Side): void {
    if (oldBody === undefined && newBody === undefined) return;
    const before = oldBody === undefined ? undefined : deref(this.base, oldBody).node;
    const after = newBody === undefined ? undefined : deref(this.current, newBody).node;
    if (side === 'request') {
      if (after?.required === true && before?.required !== true) this.report('request-body-required', op, 'a request body is now required');
      if (before && !after) {
        this.report('request-body-removed', op, 'the request body is no longer accepted');
        return;
      }
    } else if (before && !after) {
      this.report('response-body-removed', op, 'the body is no longer sent');
      return;
    }
    this.content(before?.content, after?.content, side, op, 'body');
  }

  /** Compares `content` maps: a removed media type, then each shared media type's schema. */
  content(oldContent: Json | undefined, newContent: Json | undefined, side: Side, where: string, prefix: string): void {
    const before = isObj(oldContent) ? oldContent : {};
    const after = isObj(newContent) ? newContent : {};
    for (const media of Object.keys(before)) {
      const at = media === 'application/json' ? where : `${where} ${media}`;
      if (!(media in after)) {
        this.report(
          `${side}-media-type-removed`,
          `${where} ${media}`,
          'media type no longer ' + (side === 'request' ? 'accepted' : 'sent'),
        );
        continue;
      }
      const oldSchema = isObj(before[media]) ? before[media].schema : undefined;
      const newSchema = isObj(after[media]) ? after[media].schema : undefined;
      if (oldSchema === undefined || newSchema === undefined) continue;
      this.schema(oldSchema, newSchema, side, at, prefix);
    }
  }

  responses(oldOp: Obj, newOp: Obj, op: string, side: Side): void {
    const before = isObj(oldOp.responses) ? oldOp.responses : {};
    const after = isObj(newOp.responses) ? newOp.responses : {};
    for (const status of Object.keys(before)) {
      const where = `${op} ${status}`;
      if (!(status in after)) {
        if (side === 'response') this.report('response-status-removed', where, 'status no longer documented');
        continue;
      }
      const oldResponse = deref(this.base, before[status]).node;
      const newResponse = deref(this.current, after[status]).node;
      const oldHeaders = isObj(oldResponse.headers) ? oldResponse.headers : {};
      const newHeaders = isObj(newResponse.headers) ? newResponse.headers : {};
      const lower = new Map(Object.keys(newHeaders).map((name) => [name.toLowerCase(), name]));
      for (const name of Object.keys(oldHeaders)) {
        const match = lower.get(name.toLowerCase());
        const at = `${where} header.${name.toLowerCase()}`;
        if (match === undefined) {
          if (side === 'response') this.report('response-header-removed', at, 'header no longer sent');
          continue;
        }
        const oldHeader = deref(this.base, oldHeaders[name]).node;
        const newHeader = deref(this.current, newHeaders[match]).node;
        if (side === 'response' && oldHeader.required === true && newHeader.required !== true)
          this.report('response-header-optional', at, 'no longer always sent');
        this.schema(oldHeader.schema, newHeader.schema, side, where, `header.${name.toLowerCase()}`);
      }
      this.content(oldResponse.content, newResponse.content, side, where, '');
    }
  }

  security(oldOp: Obj, newOp: Obj, op: string): void {
    const alternatives = (doc: Doc, operation: Obj): Set<string> => {
      const list = Array.isArray(operation.security) ? operation.security : Array.isArray(doc.security) ? doc.security : [];
      if (!list.length) return new Set(['none']);
      return new Set(
        list.map((requirement) =>
          isObj(requirement) && Object.keys(requirement).length ? Object.keys(requirement).sort().join('+') : 'none',
        ),
      );
    };
    const after = alternatives(this.current, newOp);
    for (const alternative of alternatives(this.base, oldOp)) {
      if (!after.has(alternative))
        this.report(
          'security-requirement-removed',
          `${op} ${alternative}`,
          `requests authenticated with ${alternative} are no longer accepted`,
        );
    }
  }

  run(): BreakingChange[] {
    const oldServers = Array.isArray(this.base.servers) ? this.base.servers : [];
    const newUrls = new Set(
      (Array.isArray(this.current.servers) ? this.current.servers : []).map((server) => (isObj(server) ? server.url : null)),
    );
    for (const server of oldServers)
      if (isObj(server) && !newUrls.has(server.url)) this.report('server-removed', String(server.url), 'server URL no longer served');

    const oldSchemes =
      isObj(this.base.components) && isObj(this.base.components.securitySchemes) ? this.base.components.securitySchemes : {};
    const newSchemes =
      isObj(this.current.components) && isObj(this.current.components.securitySchemes) ? this.current.components.securitySchemes : {};
    for (const name of Object.keys(oldSchemes)) {
      if (!(name in newSchemes)) {
        this.report('security-scheme-removed', name, 'security scheme removed');
        continue;
      }
      const pick = (doc: Doc, scheme: Json): string => {
        const { type, in: inside, name: header, scheme: httpScheme, bearerFormat, flows, openIdConnectUrl } = deref(doc, scheme).node;
        return canonical(doc, { type, in: inside, name: header, scheme: httpScheme, bearerFormat, flows, openIdConnectUrl } as Obj);
      };
      if (pick(this.base, oldSchemes[name]) !== pick(this.current, newSchemes[name]))
        this.report('security-scheme-changed', name, 'type, location, name or scheme changed');
    }

    for (const [collection, label] of [
      ['paths', (name: string) => name],
      ['webhooks', (name: string) => `webhook:${name}`],
    ] as const) {
      const oldItems = isObj(this.base[collection]) ? this.base[collection] : {};
      const newItems = isObj(this.current[collection]) ? this.current[collection] : {};
      const webhook = collection === 'webhooks';
      for (const key of Object.keys(oldItems)) {
        const oldItem = deref(this.base, oldItems[key]).node;
        const newItem = key in newItems ? deref(this.current, newItems[key]).node : {};
        for (const method of METHODS) {
          if (!isObj(oldItem[method])) continue;
          const op = `${method.toUpperCase()} ${label(key)}`;
          if (!isObj(newItem[method])) {
            this.report(webhook ? 'webhook-removed' : 'operation-removed', op, webhook ? 'webhook no longer sent' : 'operation removed');
            continue;
          }
          const oldOp = oldItem[method];
          const newOp = newItem[method];
          // A webhook turns the roles round: the partner reads its parameters and body, the service its answer.
          this.parameters(oldOp, oldItem, newOp, newItem, op, webhook ? 'response' : 'request');
          this.body(oldOp.requestBody, newOp.requestBody, op, webhook ? 'response' : 'request');
          this.responses(oldOp, newOp, op, webhook ? 'request' : 'response');
          if (!webhook) this.security(oldOp, newOp, op);
        }
      }
    }
    return this.changes;
  }
}

/** Every breaking change from `base` (the released contract) to `current`. */
export function findBreakingChanges(base: Doc, current: Doc): BreakingChange[] {
  return new Comparison(base, current).run();
}

/** Reads and checks spec/breaking-changes.yaml: `changes:` a list of {date: YYYY-MM-DD, change, reason}. */
export function parseAllowList(text: string): AllowEntry[] {
  const document = parse(text) as { changes?: unknown } | null;
  const list = document?.changes ?? [];
  if (!Array.isArray(list)) throw new Error('breaking-changes: `changes` must be a list');
  return list.map((entry, index) => {
    const at = `breaking-changes: entry ${index + 1}`;
    if (!isObj(entry)) throw new Error(`${at} must be a mapping of date, change and reason`);
    const { date, change, reason } = entry;
    const day = typeof date === 'string' ? date : '';
    if (
      !/^\d{4}-\d{2}-\d{2}$/.test(day) ||
      Number.isNaN(Date.parse(`${day}T00:00:00Z`)) ||
      new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day
    ) {
      throw new Error(`${at}: date must be a calendar date YYYY-MM-DD (quote it in YAML), got ${JSON.stringify(date)}`);
    }
    if (typeof change !== 'string' || !change.trim()) throw new Error(`${at}: change must be the identifier the checker prints`);
    if (typeof reason !== 'string' || !reason.trim()) throw new Error(`${at}: reason must say why the break is intended`);
    return { date: day, change: change.trim(), reason: reason.trim() };
  });
}

/** Splits the changes into those an entry allows and those it does not, and lists entries that match nothing. */
export function applyAllowList(
  changes: BreakingChange[],
  entries: AllowEntry[],
): { allowed: [BreakingChange, AllowEntry][]; refused: BreakingChange[]; unused: AllowEntry[] } {
  const allowed: [BreakingChange, AllowEntry][] = [];
  const refused: BreakingChange[] = [];
  for (const change of changes) {
    const entry = entries.find((candidate) => candidate.change === change.id);
    if (entry) allowed.push([change, entry]);
    else refused.push(change);
  }
  const unused = entries.filter((entry) => !changes.some((change) => change.id === entry.change));
  return { allowed, refused, unused };
}

/** The released contract to compare with: the highest spec/released/openapi-<version>.yaml. */
export function latestReleased(dir: string): string {
  const parts = (name: string): number[] =>
    name
      .replace(/^openapi-|\.yaml$/g, '')
      .split('.')
      .map(Number);
  const files = fs
    .readdirSync(dir)
    .filter((name) => /^openapi-\d+\.\d+\.\d+\.yaml$/.test(name))
    .sort((a, b) => {
      const [x, y] = [parts(a), parts(b)];
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
    });
  if (!files.length) throw new Error(`no released contract (openapi-<version>.yaml) in ${dir}`);
  return path.join(dir, files[files.length - 1]);
}

function main(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const option = (name: string, fallback: string): string => {
    const index = process.argv.indexOf(name);
    return index > 0 && process.argv[index + 1] ? path.resolve(process.argv[index + 1]) : fallback;
  };
  const baseFile = option('--base', latestReleased(path.join(root, 'spec/released')));
  const currentFile = option('--spec', path.join(root, 'spec/openapi.yaml'));
  const allowFile = option('--allow', path.join(root, 'spec/breaking-changes.yaml'));
  const relative = (file: string): string => path.relative(process.cwd(), file) || file;

  const changes = findBreakingChanges(parse(fs.readFileSync(baseFile, 'utf8')) as Doc, parse(fs.readFileSync(currentFile, 'utf8')) as Doc);
  const entries = fs.existsSync(allowFile) ? parseAllowList(fs.readFileSync(allowFile, 'utf8')) : [];
  const { allowed, refused, unused } = applyAllowList(changes, entries);

  process.stdout.write(`comparing ${relative(currentFile)} with the released ${relative(baseFile)}\n`);
  for (const [change, entry] of allowed) process.stdout.write(`allowed (${entry.date}, ${relative(allowFile)}): ${change.message}\n`);
  for (const entry of unused)
    process.stdout.write(`note: ${relative(allowFile)} entry of ${entry.date} matches no change: ${entry.change}\n`);
  if (refused.length) {
    process.stderr.write(`${refused.length} breaking change(s) not listed in ${relative(allowFile)}:\n`);
    for (const change of refused) process.stderr.write(`  ${change.message}\n`);
    process.stderr.write(
      'Make the change additive, or, when the break is intended, add an entry {date, change: <the identifier before the colon>, reason} to the file above.\n',
    );
    process.exit(1);
  }
  process.stdout.write(changes.length ? `${changes.length} breaking change(s), each listed with its date\n` : 'no breaking changes\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
