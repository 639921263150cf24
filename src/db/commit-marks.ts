import { AsyncLocalStorage } from "node:async_hooks";
import {
  PostgresDialect,
  PostgresDriver,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type PostgresDialectConfig,
} from "kysely";

/**
 * Commit marks: a statement that every transaction committed within a scope runs just before its
 * COMMIT, so it is durable exactly when the transaction's own writes are. The Idempotency-Key layer
 * uses it to stamp its record "changes committed" atomically with a request's changes, without any
 * service knowing (src/http/idempotency.ts). Statements outside an explicit transaction are not marked.
 */
const marks = new AsyncLocalStorage<{ statement: CompiledQuery | null }>();

/** Runs `work` (and everything it starts) in a scope without a mark yet; see {@link setCommitMark}. */
export function openCommitMarkScope(work: () => void): void {
  marks.run({ statement: null }, work);
}

/** Sets the statement the current scope's transactions run before committing; `null` removes it. */
export function setCommitMark(statement: CompiledQuery | null): void {
  const scope = marks.getStore();
  if (scope) scope.statement = statement;
}

class MarkingPostgresDriver extends PostgresDriver {
  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const statement = marks.getStore()?.statement;
    if (statement) await connection.executeQuery(statement);
    await super.commitTransaction(connection);
  }
}

/** Kysely's PostgreSQL dialect whose transactions run the current scope's commit mark. */
export function markingPostgresDialect(config: PostgresDialectConfig): Dialect {
  const base = new PostgresDialect(config);
  return {
    createDriver: () => new MarkingPostgresDriver(config),
    createQueryCompiler: () => base.createQueryCompiler(),
    createAdapter: () => base.createAdapter(),
    createIntrospector: (db) => base.createIntrospector(db),
  };
}
