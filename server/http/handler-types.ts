/**
 * Types that bind handlers to the spec: one handler per operationId, receiving that operation's parameters
 * and body and returning only a status and body the spec documents for it (anything else fails `tsc`).
 */
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { operations } from '../../generated/api.js';

/** Operations of the spec's `webhooks` section: the service sends them to partners, it does not serve them. */
export type WebhookOperationId = 'swapUpdatedWebhook' | 'permanentDepositUpdatedWebhook' | 'webhookTestWebhook';

/** Every operationId the server serves. */
export type OperationId = Exclude<keyof operations, WebhookOperationId>;

type Responses<Id extends OperationId> = operations[Id]['responses'];
type ResponseBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
// Optional parameter groups (`query?: {...}`) count too: the validator has checked what is present.
type Params<Id extends OperationId, Where extends 'path' | 'query' | 'header'> = NonNullable<operations[Id]['parameters'][Where]>;
type Body<Id extends OperationId> = operations[Id] extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : operations[Id] extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : undefined;

/** A response the spec documents for the operation: its status and matching JSON body. */
export type HandlerResult<Id extends OperationId> = {
  [S in keyof Responses<Id> & number]: {
    status: S;
    body: ResponseBody<Responses<Id>[S]>;
    headers?: Record<string, string>;
  };
}[keyof Responses<Id> & number];

const FIXED_BODIES = new WeakSet<object>();

/**
 * Marks a body that never changes for the life of the process (the catalogue): it is deep-frozen, and
 * when responses are not validated it is serialised once and the same bytes are sent every time.
 */
export function fixedBody<T extends object>(body: T): T {
  const freeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
    Object.freeze(value);
    for (const child of Object.values(value)) freeze(child);
  };
  freeze(body);
  FIXED_BODIES.add(body);
  return body;
}

/** Whether `body` was made with fixedBody. */
export const isFixedBody = (body: unknown): body is object => typeof body === 'object' && body !== null && FIXED_BODIES.has(body);

/** Returned by a handler that wrote the response itself (a stream). */
export interface ResponseHandled {
  handled: true;
}

/** The partner a signed request authenticated as. */
export interface AuthenticatedPartner {
  partnerId: string;
  keyId: string;
  /** The x-service-user header: the partner's own customer identifier. */
  user: string;
}

/** What a handler receives: validated input, the request's identity and the raw express objects. */
export interface HandlerContext<Id extends OperationId> {
  operationId: Id;
  requestId: string;
  path: Params<Id, 'path'>;
  query: Params<Id, 'query'>;
  headers: Params<Id, 'header'>;
  body: Body<Id>;
  /** Set on signed operations once the signature has been verified. */
  partner?: AuthenticatedPartner;
  log: Logger;
  req: Request;
  res: Response;
}

/** A handler for one operation. */
export type Handler<Id extends OperationId> = (context: HandlerContext<Id>) => Promise<HandlerResult<Id> | ResponseHandled>;

/** The complete handler table: a new operation in the spec is a compile error until it is handled here. */
export type Handlers = { [Id in OperationId]: Handler<Id> };
