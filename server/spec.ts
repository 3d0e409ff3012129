/** The bundled API document (generated/openapi.json), which the server validates against and serves. */
import fs from 'node:fs';

/** Reads the bundled document and its version label (info.version). */
export function loadApiDocument(file = new URL('../generated/openapi.json', import.meta.url)): {
  document: Record<string, unknown>;
  version: string;
} {
  const document = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown> & { info: { version: string } };
  return { document, version: document.info.version };
}

type Node = { [key: string]: unknown };
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const nodes = (value: unknown): Node[] => (Array.isArray(value) ? value.filter(isNode) : isNode(value) ? [value] : []);
// Where a subschema describes a whole value of its own (a field, an item, one alternative of the value). Not
// if/then/else, not, dependentSchemas or contains: they constrain part of a value another schema describes,
// and closing them would refuse that schema's other fields.
const SUBSCHEMA_KEYS = ['items', 'additionalProperties'];
const SUBSCHEMA_LIST_KEYS = ['oneOf', 'anyOf', 'prefixItems'];
const SUBSCHEMA_MAP_KEYS = ['properties', 'patternProperties'];

/** Which messages: `sent` = responses and webhook payloads (the partner reads them); `received` = request bodies. */
export type MessageDirection = 'sent' | 'received';

/**
 * Every object schema (one that lists `properties`) in the messages of one direction, found through local
 * $refs, each once, with where it was first reached. Throws on `allOf`, which `additionalProperties` cannot
 * close (each member would refuse the fields of the others): such a schema needs `unevaluatedProperties`.
 */
export function messageObjectSchemas(document: object, direction: MessageDirection): Array<{ at: string; schema: Node }> {
  const found: Array<{ at: string; schema: Node }> = [];
  const seen = new Set<Node>();
  // Follows local $refs; a visited node is done (schemas may be reached from many messages, or recursively).
  const enter = (value: unknown): Node | undefined => {
    let node = value;
    while (isNode(node) && typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      const path = node.$ref.slice(2).split('/');
      node = path.reduce<unknown>((at, key) => (isNode(at) ? at[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), document);
    }
    if (!isNode(node) || seen.has(node)) return undefined;
    seen.add(node);
    return node;
  };
  const visitSchema = (value: unknown, at: string): void => {
    const schema = enter(value);
    if (!schema) return;
    if (schema.allOf !== undefined) throw new Error(`allOf at ${at}: it cannot be closed with additionalProperties`);
    if (isNode(schema.properties)) found.push({ at, schema });
    for (const key of SUBSCHEMA_KEYS) visitSchema(schema[key], `${at}/${key}`);
    for (const key of SUBSCHEMA_LIST_KEYS) nodes(schema[key]).forEach((item, index) => visitSchema(item, `${at}/${key}/${index}`));
    for (const key of SUBSCHEMA_MAP_KEYS) {
      for (const [name, item] of Object.entries(isNode(schema[key]) ? schema[key] : {})) visitSchema(item, `${at}/${key}/${name}`);
    }
  };
  // A response or a request body: the schemas of its content and of its headers.
  const visitMessage = (value: unknown, at: string): void => {
    const message = enter(value);
    if (!message) return;
    for (const [media, content] of Object.entries(isNode(message.content) ? message.content : {})) {
      if (isNode(content)) visitSchema(content.schema, `${at} ${media}`);
    }
    for (const [name, header] of Object.entries(isNode(message.headers) ? message.headers : {})) {
      const resolved = enter(header);
      if (resolved) visitSchema(resolved.schema, `${at} header ${name}`);
    }
  };
  const operations = (collection: 'paths' | 'webhooks'): Array<[string, Node]> => {
    const items = (document as Node)[collection];
    return Object.entries(isNode(items) ? items : {}).flatMap(([name, item]) =>
      Object.entries(isNode(item) ? item : {})
        .filter((entry): entry is [string, Node] => isNode(entry[1]))
        .map(([method, operation]): [string, Node] => [
          `${method.toUpperCase()} ${collection === 'webhooks' ? `webhook:${name}` : name}`,
          operation,
        ]),
    );
  };
  for (const [name, operation] of operations('paths')) {
    if (direction === 'received') visitMessage(operation.requestBody, name);
    else
      for (const [status, response] of Object.entries(isNode(operation.responses) ? operation.responses : {}))
        visitMessage(response, `${name} ${status}`);
  }
  // A webhook turns the roles round: its payload is what the service sends (the partner's answer has no body).
  if (direction === 'sent') for (const [name, operation] of operations('webhooks')) visitMessage(operation.requestBody, name);
  return found;
}

/**
 * A copy of `document` in which every object schema the service sends (responses and webhook payloads)
 * refuses fields it does not list: `additionalProperties: false` wherever the schema says nothing of
 * `additionalProperties`. The published contract leaves them open, because v1 promises new response fields
 * and a client must ignore the ones it does not know; the service itself must still send only what the
 * contract documents, so its response validation (VALIDATE_RESPONSES) and `make contract` check against this
 * copy. A schema shared with a request body is closed there too, which is what the contract asks of every
 * request body anyway.
 */
export function closeResponseSchemas<T extends object>(document: T): T {
  const copy = structuredClone(document);
  for (const { schema } of messageObjectSchemas(copy, 'sent')) {
    if (!('additionalProperties' in schema)) schema.additionalProperties = false;
  }
  return copy;
}
