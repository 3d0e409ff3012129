/** Small helpers for talking to a test server over real HTTP. */
import { expect } from 'chai';

/** A response with its parsed JSON body (undefined when the body is not JSON). */
export interface JsonResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Sends a request and parses the JSON answer. */
export async function request<T = unknown>(url: string, init: RequestInit = {}): Promise<JsonResponse<T>> {
  return readJson<T>(fetch(url, init));
}

/** Reads a response (or a pending one) into a JsonResponse. */
export async function readJson<T = unknown>(pending: Response | Promise<Response>): Promise<JsonResponse<T>> {
  const response = await pending;
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body: body as T, text };
}

/** Asserts the spec's Error body with `status` and `code`, a message and the request id echoed. */
export function expectError(response: JsonResponse, status: number, code: string): void {
  expect(response.status, response.text).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  const body = response.body as { error: { code: string; message: string; requestId?: string } };
  expect(body.error.code, response.text).to.equal(code);
  expect(body.error.message).to.be.a('string').and.not.empty;
  expect(body.error.requestId).to.equal(response.headers.get('x-request-id'));
  expect(response.text).not.to.match(/\bat .+\.(ts|js):\d+/); // no stack traces
}
