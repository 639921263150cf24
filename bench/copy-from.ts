import type pg from "pg";

/** The slice of pg's connection a COPY FROM STDIN needs (pg exposes it to submittables). */
interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

/**
 * `COPY … FROM STDIN` with plain `pg`: a submittable that answers the server's CopyInResponse with
 * the whole payload. Enough for a benchmark floor without adding pg-copy-streams.
 */
class CopyFromText implements pg.Submittable {
  private readonly statement: string;
  private readonly payload: string;
  private readonly done: (error?: Error) => void;

  constructor(statement: string, payload: string, done: (error?: Error) => void) {
    this.statement = statement;
    this.payload = payload;
    this.done = done;
  }

  submit(connection: unknown): void {
    (connection as CopyConnection).query(this.statement);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    connection.sendCopyFromChunk(Buffer.from(this.payload));
    connection.endCopyFrom();
  }

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {
    this.done();
  }

  // pg drops the active query before reporting an error, so no ReadyForQuery follows for it.
  handleError(error: Error): void {
    this.done(error);
  }

  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

export function copyFromText(client: pg.PoolClient, statement: string, payload: string): Promise<void> {
  return new Promise((resolve, reject) => {
    client.query(new CopyFromText(statement, payload, (error) => (error ? reject(error) : resolve())));
  });
}
