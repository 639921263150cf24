import { CompiledQuery } from "kysely";
import type pg from "pg";
import type { Executor } from "./database.ts";

// `COPY … FROM STDIN` over the `pg` wire protocol, with no extra package, reachable through Kysely
// so that it runs inside the caller's transaction (and its commit mark, commit-marks.ts).

/** The slice of pg's connection a COPY FROM STDIN needs (pg exposes it to submittables). */
interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

/**
 * A submittable that answers the server's CopyInResponse with the whole payload at once. Its
 * statement is `text` and it ends through `callback`, the two fields pg's Query has: the pg
 * instrumentation reads them, so with tracing on a COPY is a span with its statement, ended when
 * the COPY is (without them its span had no text and was never ended, so never exported).
 */
class CopyFromText implements pg.Submittable {
  readonly text: string;
  private readonly payload: string;
  callback: (error: Error | null, rowCount: number) => void;
  private rowCount = 0;

  constructor(statement: string, payload: string, done: (error: Error | null, rowCount: number) => void) {
    this.text = statement;
    this.payload = payload;
    this.callback = done;
  }

  submit(connection: unknown): void {
    (connection as CopyConnection).query(this.text);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    connection.sendCopyFromChunk(Buffer.from(this.payload));
    connection.endCopyFrom();
  }

  handleCommandComplete(message: { text?: string }): void {
    this.rowCount = Number(/^COPY (\d+)/.exec(message.text ?? "")?.[1] ?? 0);
  }

  handleReadyForQuery(): void {
    this.callback(null, this.rowCount);
  }

  // pg drops the active query before reporting an error, so no ReadyForQuery follows for it.
  handleError(error: Error): void {
    this.callback(error, 0);
  }

  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

/** `statement` (`COPY … FROM STDIN`) on a `pg` client, the rows as COPY text; resolves with the rows copied. */
export function copyFromText(client: pg.ClientBase, statement: string, payload: string): Promise<number> {
  return new Promise((resolve, reject) => {
    client.query(new CopyFromText(statement, payload, (error, rowCount) => (error ? reject(error) : resolve(rowCount))));
  });
}

const COPY_FROM_STDIN = /^COPY [^;]+ FROM STDIN$/;

/**
 * Lets a client of the pool run {@link copyFrom}: a statement `COPY … FROM STDIN` sent with exactly
 * one parameter, the rows, is run as a COPY; anything else goes to `pg` unchanged. Kysely sends
 * every statement as `client.query(text, parameters)`, so this is where a COPY can join its
 * transaction; the text is ours (never a client's), built by {@link copyFrom}.
 */
export function acceptCopyFrom(client: pg.ClientBase): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const copyAware = (...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text === "string" && COPY_FROM_STDIN.test(text) && Array.isArray(values) && values.length === 1) {
      // Kysely counts affected rows for INSERT, UPDATE, DELETE and MERGE only: the count goes as a row.
      return copyFromText(client, text, String(values[0])).then((copied) => ({ command: "COPY", rowCount: copied, rows: [{ copied }] }));
    }
    return query(...args);
  };
  Object.assign(client, { query: copyAware });
}

/**
 * `COPY <target> FROM STDIN` with `rows` (COPY text format: tab-separated, `\N` for null, each row
 * ending in a newline; see {@link copyField}) on the executor's connection, inside its transaction
 * if it has one. Resolves with the rows copied.
 */
export async function copyFrom(db: Executor, target: string, rows: string): Promise<number> {
  const result = await db.executeQuery<{ copied: number }>(CompiledQuery.raw(`COPY ${target} FROM STDIN`, [rows]));
  return result.rows[0]?.copied ?? 0;
}

const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIAL_ALL = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** One field of a COPY text row: `\N` for null, else the text with backslash, tab and line breaks escaped. */
export const copyField = (value: string | null): string =>
  value === null ? "\\N" : COPY_SPECIAL.test(value) ? value.replace(COPY_SPECIAL_ALL, (c) => COPY_ESCAPES[c]!) : value;
