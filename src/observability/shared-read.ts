/**
 * One database read shared by the gauges of a family: prom-client collects a scrape's metrics
 * concurrently, so the gauges started together wait on the same query.
 */
export function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () =>
    (inFlight ??= read().finally(() => {
      inFlight = null;
    }));
}
