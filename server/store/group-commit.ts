/**
 * Group commit: items that arrive while one statement runs are written together by the next one, so under
 * load one statement (and one commit) serves many requests, and a lone request waits for nothing more than
 * the end of the event loop's current turn.
 */

/** One submitted item, waiting for its group. */
interface Pending<I, O> {
  item: I;
  resolve(result: O): void;
  reject(err: unknown): void;
}

/**
 * Returns `submit(item)`, which resolves with the result `write` gives that item. `write` gets a group of
 * items in the order they were submitted and returns one result per item, in the same order; when it
 * throws, every item of the group is rejected with that error.
 */
export function groupCommit<I, O>(write: (items: I[]) => Promise<O[]>): (item: I) => Promise<O> {
  let waiting: Array<Pending<I, O>> = [];
  let running = false;

  async function run(group: Array<Pending<I, O>>): Promise<void> {
    let results: O[];
    try {
      results = await write(group.map((p) => p.item));
    } catch (err) {
      for (const p of group) p.reject(err);
      return;
    }
    group.forEach((p, i) => p.resolve(results[i]));
  }

  async function drain(): Promise<void> {
    running = true;
    try {
      while (waiting.length > 0) {
        const group = waiting;
        waiting = [];
        await run(group);
      }
    } finally {
      running = false;
    }
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      // The first item waits for the end of this turn of the event loop, gathering the items of the requests
      // that arrived with it; later ones ride with the next statement.
      if (!running && waiting.length === 1) setImmediate(() => void drain());
    });
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

/** The parameters of unnestInsert for `rows`: one array per column (undefined written as null). */
export function columnArrays<R>(rows: R[], fields: ReadonlyArray<keyof R>): unknown[][] {
  return fields.map((field) => rows.map((row) => row[field] ?? null));
}
