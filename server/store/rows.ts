/**
 * Shared row plumbing of the store modules whose records mirror their tables field for field:
 * camelCase record fields to snake_case columns and back, id checks before a uuid column is queried, and
 * the keyset condition of newest-first pages.
 */
import type { Knex } from 'knex';

// Names are converted once each and remembered: the set of columns is small and fixed, and a list of
// swaps converts some forty columns per row.
const snakeNames = new Map<string, string>();
const camelNames = new Map<string, string>();
const snake = (field: string) => remembered(snakeNames, field, () => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
const camel = (column: string) => remembered(camelNames, column, () => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));

function remembered(names: Map<string, string>, name: string, convert: () => string): string {
  let converted = names.get(name);
  if (converted === undefined) names.set(name, (converted = convert()));
  return converted;
}

/** A record field's column (`createdAt` -> `created_at`). */
export const toColumnName = (field: string): string => snake(field);

/** A record's fields as columns (`createdAt` -> `created_at`). */
export function toColumns(fields: object): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  for (const field of Object.keys(fields)) columns[snake(field)] = (fields as Record<string, unknown>)[field];
  return columns;
}

/** A row as a record (`created_at` -> `createdAt`). */
export function fromRow<T>(row: Record<string, unknown>): T {
  const record: Record<string, unknown> = {};
  for (const column of Object.keys(row)) record[camel(column)] = row[column];
  return record as T;
}

/**
 * A row that came as JSON (`to_jsonb` of a table's row, inside a `json_agg`) as a record: camelCase fields,
 * and the named timestamp fields made Dates again (PostgreSQL writes them in ISO 8601 with an offset; the
 * driver would have given Dates truncated to the millisecond, as `new Date` does). Numeric and bigint
 * columns must be cast to text in the SQL, as the driver reads them: a JSON number would lose digits.
 */
export function fromJsonRow<T>(row: Record<string, unknown>, timestamps: readonly string[]): T {
  const record = fromRow<Record<string, unknown>>(row);
  for (const field of timestamps) {
    const value = record[field];
    if (typeof value === 'string') record[field] = new Date(value);
  }
  return record as T;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` can be compared with a uuid column (PostgreSQL refuses the comparison otherwise). */
export const isUuid = (value: string): boolean => UUID.test(value);

/**
 * The position before every row of a (created_at, id) order, newest first: a first page of a grouped page read
 * starts from it, so first and later pages are one statement.
 */
export const BEFORE_ALL = { createdAt: 'infinity', id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' };

/** What tells a partner's page lookup from another (a grouped page read reads equal ones once). */
export function pageKey(lookup: { partnerId: string; limit: number; status?: string; after?: { createdAt: Date; id: string } }): string {
  const after = lookup.after ? `${lookup.after.createdAt.toISOString()} ${lookup.after.id}` : '';
  return `${lookup.partnerId} ${lookup.limit} ${lookup.status ?? ''} ${after}`;
}

/** Restricts a newest-first query to the rows after `position` (the last row of the previous page). */
export function afterPosition(query: Knex.QueryBuilder, position: { createdAt: Date; id: string } | undefined): Knex.QueryBuilder {
  return position ? query.whereRaw('(created_at, id) < (?, ?)', [position.createdAt, position.id]) : query;
}
