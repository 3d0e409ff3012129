/**
 * Page cursors and time filters of the list operations. Cursors are opaque to partners: they carry the
 * position of a page's last row and the filter the pages are made with. A cursor that this API did not make,
 * or one made with another filter, is a 400 naming the cursor. Every time a request carries (a filter or a
 * cursor's position) becomes a Date here and nowhere else, so none can reach a query or `toISOString()` as
 * an Invalid Date and end in a 500.
 */
import { AppError, invalidRequest } from '../domain/errors.js';

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
    throw new AppError(
      400,
      'invalid_request',
      "cursor is not a cursor this API returned; pass the previous page's nextCursor (next_cursor in the permanent-route lists).",
      {
        field: 'cursor',
      },
    );
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
  const time = instantOf(text);
  if (!time || time.toISOString() !== text) {
    throw new AppError(
      400,
      'invalid_request',
      "cursor is not a cursor this API returned; pass the previous page's nextCursor (next_cursor in the permanent-route lists).",
      {
        field: 'cursor',
      },
    );
  }
  return time;
}

/**
 * The instant a `format: date-time` parameter names. The validator checks RFC 3339's shape, which admits
 * times a JavaScript Date cannot hold: a leap second (`23:59:60`, POSIX time has none) and an offset of
 * hours alone (`+01`). Those are a 400 naming the parameter and giving its value back, never a 500.
 */
export function parseTimeParameter(text: string, field: string): Date {
  const time = instantOf(text);
  if (time) return time;
  if (LEAP_SECOND.test(text)) {
    throw invalidRequest(
      `${field} names a leap second (${text}), which this API cannot represent: its times, like POSIX time, have no leap seconds. Give the second before or after it.`,
      { field, value: text },
    );
  }
  throw invalidRequest(
    `${field} is not a time this API can read (${text}): give an RFC 3339 date-time with Z or a ±hh:mm offset, e.g. 2026-06-30T12:00:00Z.`,
    { field, value: text },
  );
}

// Seconds field 60, after the date's separator.
const LEAP_SECOND = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:60/;

// The instant `text` names, or undefined when a Date cannot hold it (Invalid Date), whatever else the text is.
function instantOf(text: string): Date | undefined {
  const time = new Date(text);
  return Number.isNaN(time.getTime()) ? undefined : time;
}
