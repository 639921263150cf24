import type { EventTypeKey } from "./events-ingest.repository.ts";

/** Pairs remembered before the memory starts over: a bound on the process's memory, not a tuning. */
const MAX_KNOWN = 100_000;

/**
 * The event types (organization, name) this process has seen stored, so that a batch naming only
 * those sends no event-type statement: one round trip of the ingest transaction's six, about 0.6 ms
 * of CPU per batch between the app and the database (bench/README.md, "Node's CPU under
 * real HTTP, and the load generator's"). An event type is never deleted and its name never changes (only its label), so a
 * pair seen stored stays stored; each process learns on its own, and a pair it has not seen is
 * checked by the database as before. Pairs are remembered only after their transaction committed.
 */
export function createKnownEventTypes() {
  const known = new Map<string, Set<string>>();
  let count = 0;
  return {
    /** The pairs not known to be stored. */
    unknown: (types: readonly EventTypeKey[]): EventTypeKey[] =>
      types.filter((type) => known.get(type.organizationId)?.has(type.name) !== true),
    /** Pairs now stored (their transaction committed). */
    remember(types: readonly EventTypeKey[]): void {
      if (count + types.length > MAX_KNOWN) {
        known.clear();
        count = 0;
      }
      for (const { organizationId, name } of types) {
        let names = known.get(organizationId);
        if (names === undefined) known.set(organizationId, (names = new Set()));
        if (!names.has(name)) {
          names.add(name);
          count += 1;
        }
      }
    },
  };
}
export type KnownEventTypes = ReturnType<typeof createKnownEventTypes>;
