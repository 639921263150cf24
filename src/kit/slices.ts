import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Maps `items` slice by slice, yielding to the event loop between slices, so that one very large
 * request (a 10 MiB ingest batch) delays the others by one slice's work rather than by all of it.
 */
export const SLICE_SIZE = 2_000;

export async function mapInSlices<T, R>(items: readonly T[], work: (item: T, index: number) => R, sliceSize = SLICE_SIZE): Promise<R[]> {
  const out: R[] = new Array(items.length);
  for (let start = 0; start < items.length; start += sliceSize) {
    if (start > 0) await nextTurn();
    const end = Math.min(items.length, start + sliceSize);
    for (let i = start; i < end; i += 1) out[i] = work(items[i]!, i);
  }
  return out;
}
