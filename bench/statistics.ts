/** The p-th percentile of unsorted samples, by the nearest rank at or below (the benches' p50 and p95). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
