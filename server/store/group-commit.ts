/**
 * Group commit: items that arrive while one statement runs are written together by the next one, so under
 * load one statement (and one commit) serves many requests, and a lone request waits for nothing more than
 * the end of the event loop's current turn. Reads that come in numbers are grouped the same way.
 */
import type { Knex } from 'knex';
import { isUuid, toColumnName } from './rows.js';

/** One submitted item, waiting for its group. */
interface Pending<I, O> {
  item: I;
  resolve(result: O): void;
  reject(err: unknown): void;
}

/** The most items written by one statement; more wait for the next (on PGlite a statement holds everyone up). */
export const MAX_GROUP = 256;

/**
 * Whether items are grouped (on unless the process's configuration turned it off: config.ts GROUP_COMMIT=off,
 * a measuring switch). Off, every item is written by a statement of its own, at once, as if there were no
 * grouping, so `make bench` can show what grouping saves on each database.
 */
let grouping = true;

/** Turns grouping on or off for the whole process (main.ts, from config.groupCommit), before any write. */
export function setGroupCommit(enabled: boolean): void {
  grouping = enabled;
}

/**
 * Returns `submit(item)`, which resolves with the result `write` gives that item. `write` gets a group of
 * items in the order they were submitted and returns one result per item, in the same order. When it throws
 * for a group of several, each item is written again on its own (a statement is all or nothing, so nothing
 * of the group was written), so one request's failure is its own and not its neighbours'.
 */
export function groupCommit<I, O>(write: (items: I[]) => Promise<O[]>): (item: I) => Promise<O> {
  const waiting: Array<Pending<I, O>> = [];
  let running = false;

  async function writeAll(items: I[]): Promise<O[]> {
    const results = await write(items);
    if (!Array.isArray(results) || results.length !== items.length) {
      throw new Error(
        `a group write returned ${Array.isArray(results) ? results.length : typeof results} results for ${items.length} items`,
      );
    }
    return results;
  }

  async function run(group: Array<Pending<I, O>>): Promise<void> {
    try {
      const results = await writeAll(group.map((p) => p.item));
      group.forEach((p, i) => p.resolve(results[i]));
    } catch (err) {
      if (group.length === 1) return group[0].reject(err);
      for (const p of group) {
        try {
          p.resolve((await writeAll([p.item]))[0]);
        } catch (alone) {
          p.reject(alone);
        }
      }
    }
  }

  async function drain(): Promise<void> {
    running = true;
    try {
      while (waiting.length > 0) await run(waiting.splice(0, MAX_GROUP));
    } finally {
      running = false;
    }
  }

  return (item) =>
    !grouping
      ? writeAll([item]).then((results) => results[0])
      : new Promise<O>((resolve, reject) => {
          waiting.push({ item, resolve, reject });
          // The first item waits for the end of this turn of the event loop, gathering the items of the requests
          // that arrived with it; later ones ride with the next statement.
          if (!running && waiting.length === 1) setImmediate(() => void drain());
        });
}

/**
 * groupCommit for reads: items with the same key (`keyOf`) in one group are read once, and each gets that
 * one result (shared, not copied: callers must not change it). `read` gets the group's distinct items. When
 * a group's read fails, each distinct item is read again on its own, all at once (not one after another, as
 * groupCommit's writes are), so a failure that is one item's is only its own, and one that is everyone's (no
 * connection to be had) is answered to all after one more wait, not one wait per item.
 */
export function groupReadDistinct<I, O>(keyOf: (item: I) => string, read: (items: I[]) => Promise<O[]>): (item: I) => Promise<O> {
  const readAll = async (items: I[]): Promise<O[]> => {
    const results = await read(items);
    if (!Array.isArray(results) || results.length !== items.length) {
      throw new Error(
        `a group read returned ${Array.isArray(results) ? results.length : typeof results} results for ${items.length} items`,
      );
    }
    return results;
  };
  const submit = groupCommit(async (items: I[]): Promise<Array<PromiseSettledResult<O>>> => {
    const slots = new Map<string, number>();
    const distinct: I[] = [];
    const slotOf = items.map((item) => {
      const key = keyOf(item);
      let slot = slots.get(key);
      if (slot === undefined) {
        slot = distinct.push(item) - 1;
        slots.set(key, slot);
      }
      return slot;
    });
    let settled: Array<PromiseSettledResult<O>>;
    try {
      settled = (await readAll(distinct)).map((value) => ({ status: 'fulfilled', value }));
    } catch (err) {
      settled =
        distinct.length === 1
          ? [{ status: 'rejected', reason: err }]
          : await Promise.allSettled(distinct.map(async (item) => (await readAll([item]))[0]));
    }
    return slotOf.map((slot) => settled[slot]);
  });
  return async (item) => {
    const outcome = await submit(item);
    if (outcome.status === 'rejected') throw outcome.reason;
    return outcome.value;
  };
}

/**
 * Group commit for creates that claim something once (a quote, an Idempotency-Key, a challenge, a route's
 * target), each claim named by a string (`claimsOf`). `writeTogether(items, alone)` writes creates of
 * distinct claims in one statement, all or nothing: it returns one outcome per create, or throws when any is
 * refused (for a lone create it answers the refusal instead). Of a group, the first create of each claim is
 * written together, without waiting long for a lock (`alone` false); when that fails, each of them is
 * written alone (`alone` true: with its own wait), all at once and apart from the groups, so a create that
 * waits for a lock holds up only itself. A later create repeating a claim is written alone after the first
 * ones, unless `repeatOutcome` knows its answer from the claims taken (given only when every first create
 * was written: `created`).
 */
export function groupCommitClaims<I, O>(options: {
  claimsOf: (item: I) => string[];
  writeTogether: (items: I[], alone: boolean) => Promise<O[]>;
  created: (outcome: O) => boolean;
  repeatOutcome: (item: I, claimed: ReadonlySet<string>) => O | undefined;
}): (item: I) => Promise<O> {
  const alone = async (item: I): Promise<O> => (await options.writeTogether([item], true))[0];
  // A group answers each create with its outcome, or with the promise of its write alone (not awaited by the
  // group, so the next group does not wait for it).
  const write = groupCommit(async (items: I[]): Promise<Array<{ written: Promise<O> }>> => {
    const claimed = new Set<string>();
    const first: I[] = [];
    const repeats = new Set<number>();
    items.forEach((item, i) => {
      const claims = options.claimsOf(item);
      if (claims.some((claim) => claimed.has(claim))) return void repeats.add(i);
      for (const claim of claims) claimed.add(claim);
      first.push(item);
    });
    let firstWritten: Array<Promise<O>>;
    try {
      firstWritten = (await options.writeTogether(first, false)).map((outcome) => Promise.resolve(outcome));
    } catch {
      firstWritten = first.map(alone);
    }
    const settled = Promise.all(firstWritten).then(
      (outcomes) => outcomes.every(options.created),
      () => false,
    );
    const answers: Array<{ written: Promise<O> }> = [];
    let previous: Promise<unknown> = settled;
    let k = 0;
    items.forEach((item, i) => {
      if (!repeats.has(i)) return void answers.push({ written: firstWritten[k++] });
      // Repeats one after another, after the first creates.
      const written = previous.then(async () => {
        const known = (await settled) ? options.repeatOutcome(item, claimed) : undefined;
        return known === undefined ? alone(item) : known;
      });
      previous = written.catch(() => undefined);
      answers.push({ written });
    });
    return answers;
  });
  return async (item) => (await write(item)).written;
}

/**
 * The statement that writes a group of rows at once: `insert into <table> (<columns>) select * from
 * unnest(?::<type>[], ...)`, one array parameter per column (in the order of `columnTypes`), so its text is
 * the same whatever the group's size (one prepared statement). `returning` is appended as given.
 */
export function unnestInsert(table: string, columnTypes: Record<string, string>, returning?: string): string {
  const columns = Object.keys(columnTypes);
  return (
    `insert into ${table} (${columns.join(', ')}) select * from unnest(${columns.map((c) => `?::${columnTypes[c]}[]`).join(', ')})` +
    (returning ? ` returning ${returning}` : '')
  );
}

/**
 * unnestInsert for records of type R: `types` gives each field's SQL type, its column being the field's name
 * in snake_case. Returns the statement and how to make its parameters from a group of records.
 */
export function recordInsert<R>(
  table: string,
  types: Record<keyof R & string, string>,
  returning?: string,
): { sql: string; params: (records: R[]) => unknown[][] } {
  const fields = Object.keys(types) as Array<keyof R & string>;
  return {
    sql: unnestInsert(table, Object.fromEntries(fields.map((f) => [toColumnName(f), types[f]])), returning),
    params: (records) => columnArrays(records, fields),
  };
}

/**
 * Returns `read(lookup)`: the rows `sql` finds for a lookup, read in groups (groupReadDistinct: lookups with
 * the same `keyOf` once). `sql` takes the lookups' positions (0, 1, ...) as its first parameter, an int[],
 * then what `params` makes of the group, and names each row's lookup in its column "l:i"; `toRecord` makes a
 * record of a row without that column.
 */
export function groupReadRows<L, R>(
  db: Knex,
  sql: string,
  options: { keyOf: (lookup: L) => string; params: (lookups: L[]) => unknown[]; toRecord: (row: Record<string, unknown>) => R },
): (lookup: L) => Promise<R[]> {
  return groupReadDistinct(options.keyOf, async (lookups: L[]) => {
    const { rows } = (await db.raw(sql, [lookups.map((_, i) => i), ...options.params(lookups)])) as {
      rows: Array<Record<string, unknown>>;
    };
    const lists: R[][] = lookups.map(() => []);
    for (const { 'l:i': i, ...row } of rows) lists[Number(i)].push(options.toRecord(row));
    return lists;
  });
}

/** The parameters of unnestInsert for `rows`: one array per column (undefined written as null). */
export function columnArrays<R>(rows: R[], fields: ReadonlyArray<keyof R>): unknown[][] {
  return fields.map((field) => rows.map((row) => row[field] ?? null));
}

/**
 * Reads rows of `table` by its uuid column `column` through group commit: the keys asked for while a read
 * runs are read together by the next, in one statement with one array parameter (so its text, and its
 * prepared statement, is the same for any group). Each read starts after its request arrived, so it sees
 * every change committed before. A key that is not a uuid finds nothing without a read; a uuid is matched in
 * any case, as a read by it would.
 */
export function groupReadByUuid<R>(
  db: Knex,
  table: string,
  column: string,
  toRecord: (row: Record<string, unknown>) => R,
): (key: string) => Promise<R | undefined> {
  const read = groupReadDistinct(
    (key: string) => key,
    async (keys) => {
      const rows: Array<Record<string, unknown>> = await db(table).whereRaw('?? = any(?::uuid[])', [column, keys]);
      const found = new Map(rows.map((row) => [row[column] as string, toRecord(row)]));
      return keys.map((key) => found.get(key));
    },
  );
  return async (key) => (isUuid(key) ? read(key.toLowerCase()) : undefined);
}
