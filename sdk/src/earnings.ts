/**
 * The `earnings` namespace: the markup your permanent routes earned, one entry per finished route order, with
 * totals per asset over every entry the `from`/`to` filters match, one page or every page at a time.
 * The markup itself is set with client.setMarkup.
 */
import type { Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/api.js';
import { allPages, toResult, type ApiResult } from './result.js';

type Schemas = components['schemas'];

/** One finished route order's markup: `amount` in the destination `asset`, `amountUsd`, `markupPercent`, `routeId`, `orderId`. */
export type Earning = Schemas['Earning'];
/** The sum of every earning matching the filters (not only one page) for one asset and network. */
export type EarningTotal = Schemas['EarningTotal'];
/** One page of GET /partner/earnings: `{ earnings, totals, nextCursor }`. */
export type EarningsPage = Schemas['EarningsPage'];
/**
 * Query of earnings.list: `limit` (1-100, default 50), `from` (inclusive) and `to` (exclusive) date-times on
 * `createdAt`, `cursor` (a page's nextCursor, valid only with the same `from` and `to`).
 */
export type ListEarningsQuery = NonNullable<operations['listPartnerEarnings']['parameters']['query']>;

/** Markup earnings of your permanent routes. */
export interface EarningsApi {
  /** GET /partner/earnings: one page of earnings, newest first, and the totals of everything the filters match. */
  list(query?: ListEarningsQuery): Promise<ApiResult<EarningsPage>>;
  /** Every page of GET /partner/earnings with the same filters, following nextCursor until null; an error page is yielded last. */
  listAll(filter?: Omit<ListEarningsQuery, 'cursor'>): AsyncGenerator<ApiResult<EarningsPage>, void, undefined>;
}

/** Builds the earnings namespace over the signed client. */
export function createEarningsApi(raw: Client<paths>): EarningsApi {
  const list: EarningsApi['list'] = (query = {}) => toResult(raw.GET('/partner/earnings', { params: { query } }));

  return {
    list,

    listAll: (filter = {}) => allPages(list, filter),
  };
}
