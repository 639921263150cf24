/** The constraint a PostgreSQL unique violation (23505) names, or null for any other error. */
export function uniqueViolation(error: unknown): string | null {
  if (typeof error !== "object" || error === null) return null;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  if (code !== "23505") return null;
  return typeof constraint === "string" ? constraint : "";
}

/** Socket errors of a lost or refused database connection. */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);
/** PostgreSQL shutting down, restarting or full (SQLSTATE 57P01–57P03, 53300; class 08 is checked apart). */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300"]);
/** What pg and pg-pool raise when a connection cannot be had or was lost (they carry no code). */
const UNAVAILABLE_MESSAGES = [/^timeout exceeded when trying to connect$/, /^Connection terminated/, /is not queryable/];

/** Whether an error means "the database cannot be reached right now" rather than a fault of the request or the code. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith("08"))) return true;
  // A host name with several addresses (localhost: ::1 and 127.0.0.1) fails with one error per address.
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  return UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(error.message));
}

/** A deadlock victim (40P01) or a serialization failure (40001): the transaction was rolled back and may be retried. */
export function isTransactionConflict(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code } = error as { code?: unknown };
  return code === "40P01" || code === "40001";
}
