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

/** A page of a list: its next-page cursor is `nextCursor`, or `next_cursor` in the permanent-route lists. */
type Page = { nextCursor: string | null } | { next_cursor: string | null };

/**
 * Every page of a cursor-paged list: calls `fetchPage` with `filter` and each page's next-page cursor until it
 * is null, yielding each result; an error page is yielded last.
 */
export async function* allPages<Q extends object, P extends Page>(
  fetchPage: (query: Q & { cursor?: string }) => Promise<ApiResult<P>>,
  filter: Q,
): AsyncGenerator<ApiResult<P>, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage({ ...filter, cursor });
    yield page;
    if (page.error) return;
    cursor = ('next_cursor' in page.data ? page.data.next_cursor : page.data.nextCursor) ?? undefined;
  } while (cursor !== undefined);
}
