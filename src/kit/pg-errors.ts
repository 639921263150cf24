/** The constraint a PostgreSQL unique violation (23505) names, or null for any other error. */
export function uniqueViolation(error: unknown): string | null {
  if (typeof error !== "object" || error === null) return null;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  if (code !== "23505") return null;
  return typeof constraint === "string" ? constraint : "";
}
