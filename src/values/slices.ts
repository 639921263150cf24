import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Work over large arrays split in slices, yielding to the event loop between slices, so that one
 * very large request (a 10 MiB ingest batch) delays the others by one slice's work rather than by
 * all of it.
 */
export const SLICE_SIZE = 2_000;

/** `work` once per slice (with the slice's offset), in order. */
export async function mapSlices<T, R>(
  items: readonly T[],
  work: (slice: readonly T[], offset: number) => R,
  sliceSize = SLICE_SIZE,
): Promise<R[]> {
  const out: R[] = [];
  for (let start = 0; start < items.length; start += sliceSize) {
    if (start > 0) await nextTurn();
    out.push(work(items.slice(start, start + sliceSize), start));
  }
  return out;
}

/** `work` once per item, slice by slice. */
export async function mapInSlices<T, R>(items: readonly T[], work: (item: T, index: number) => R, sliceSize = SLICE_SIZE): Promise<R[]> {
  const slices = await mapSlices(items, (slice, offset) => slice.map((item, i) => work(item, offset + i)), sliceSize);
  const out: R[] = [];
  for (const slice of slices) for (const result of slice) out.push(result);
  return out;
}
