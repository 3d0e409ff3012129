/**
 * Page cursors of the list operations: opaque to partners, they carry the position of a page's last row and
 * the filter the pages are made with. A cursor that this API did not make, or one made with another filter,
 * is a 400 naming the cursor.
 */
import { AppError } from '../domain/errors.js';

/** Patterns of the position fields cursors carry. */
export const CURSOR_FIELDS = {
  timestamp: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  sequence: /^\d{1,18}$/,
} as const;

/** The cursor of the page after the row at `position`, for pages made with `filter`. */
export function encodeCursor(position: Record<string, string>, filter?: string): string {
  return Buffer.from(JSON.stringify({ p: position, f: filter ?? null })).toString('base64url');
}

/** The position a cursor carries, each field checked against `shape`; 400 when it is not usable with `filter`. */
export function decodeCursor<K extends string>(cursor: string, filter: string | undefined, shape: Record<K, RegExp>): Record<K, string> {
  let value: { p?: Record<string, unknown>; f?: unknown } = {};
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) ?? {};
  } catch {
    // not JSON: refused below
  }
  const position = value.p;
  const usable =
    typeof position === 'object' &&
    position !== null &&
    (Object.entries(shape) as Array<[K, RegExp]>).every(
      ([field, pattern]) => typeof position[field] === 'string' && pattern.test(position[field]),
    );
  if (!usable) {
    throw new AppError(400, 'invalid_request', 'cursor is not a cursor this API returned; pass nextCursor of the previous page.', {
      field: 'cursor',
    });
  }
  if ((value.f ?? undefined) !== filter) {
    throw new AppError(400, 'invalid_request', 'This cursor was made with another filter; use the same filter for every page.', {
      field: 'cursor',
    });
  }
  return position as Record<K, string>;
}

/** A newest-first page position: the last row's creation time and id. */
export const PAGE_POSITION = { c: CURSOR_FIELDS.timestamp, i: CURSOR_FIELDS.uuid };

/** The position a decoded PAGE_POSITION cursor names; 400 for a well-formed but impossible time (month 99). */
export function positionOf(position: { c: string; i: string }): { createdAt: Date; id: string } {
  return { createdAt: cursorTime(position.c), id: position.i };
}

/**
 * The time a decoded cursor's timestamp field (CURSOR_FIELDS.timestamp) names; 400 for a well-formed but
 * impossible one (month 99), which no cursor this API made carries.
 */
export function cursorTime(text: string): Date {
  const time = new Date(text);
  if (Number.isNaN(time.getTime()) || time.toISOString() !== text) {
    throw new AppError(400, 'invalid_request', 'cursor is not a cursor this API returned; pass nextCursor of the previous page.', {
      field: 'cursor',
    });
  }
  return time;
}
