/**
 * Shared row plumbing of the store modules whose records mirror their tables field for field:
 * camelCase record fields to snake_case columns and back, id checks before a uuid column is queried, and
 * the keyset condition of newest-first pages.
 */
import type { Knex } from 'knex';

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** A record's fields as columns (`createdAt` -> `created_at`). */
export function toColumns(fields: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([field, value]) => [snake(field), value]));
}

/** A row as a record (`created_at` -> `createdAt`). */
export function fromRow<T>(row: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(row).map(([column, value]) => [camel(column), value])) as T;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` can be compared with a uuid column (PostgreSQL refuses the comparison otherwise). */
export const isUuid = (value: string): boolean => UUID.test(value);

/** Restricts a newest-first query to the rows after `position` (the last row of the previous page). */
export function afterPosition(query: Knex.QueryBuilder, position: { createdAt: Date; id: string } | undefined): Knex.QueryBuilder {
  return position ? query.whereRaw('(created_at, id) < (?, ?)', [position.createdAt, position.id]) : query;
}
