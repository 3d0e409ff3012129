/** The shape of every result: openapi-fetch's `{ data, error, response }`, with `error` a typed value. */
import { PartnerApiError, type WaitTimeoutError } from './errors.js';

/** The result of a call: data on 2xx, a PartnerApiError otherwise; the raw response either way. */
export type ApiResult<T> =
  { data: T; error?: undefined; response: Response } | { data?: undefined; error: PartnerApiError; response: Response };

/** The result of a wait helper: an ApiResult, or a WaitTimeoutError with the last response seen. */
export type WaitResult<T> = ApiResult<T> | { data?: undefined; error: WaitTimeoutError; response: Response };

/** Turns what openapi-fetch resolved into an ApiResult. */
export async function toResult<T>(pending: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<ApiResult<T>> {
  const { data, error, response } = await pending;
  return response.ok ? { data: data as T, response } : { error: PartnerApiError.from(response, error), response };
}

/**
 * Every page of a cursor-paged list: calls `fetchPage` with `filter` and each page's `nextCursor` until it is
 * null, yielding each result; an error page is yielded last.
 */
export async function* allPages<Q extends object, P extends { nextCursor?: string | null }>(
  fetchPage: (query: Q & { cursor?: string }) => Promise<ApiResult<P>>,
  filter: Q,
): AsyncGenerator<ApiResult<P>, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage({ ...filter, cursor });
    yield page;
    if (page.error) return;
    cursor = page.data.nextCursor ?? undefined;
  } while (cursor !== undefined);
}
