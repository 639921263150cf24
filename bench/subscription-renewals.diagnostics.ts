/**
 * What a reader waits on while the sweep runs, per phase of the renewal bench (quiet, floor, sweep),
 * measured in the server process and independent of the machine's load where it can be: how long
 * requests wait for a pool connection (the sweep's and the floor's checkouts are not counted), the
 * event loop's delay (`monitorEventLoopDelay`), and the garbage collector's pauses (`gc` entries).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { constants, monitorEventLoopDelay, PerformanceObserver, type EventLoopUtilization, performance } from "node:perf_hooks";
import type pg from "pg";

type Phase = {
  name: string;
  poolWaits: number[];
  queued: number;
  gc: { count: number; ms: number; max: number; major: number; majorMs: number };
};

const background = new AsyncLocalStorage<true>();

/** Runs `work` (the sweep or the floor) so that its pool checkouts are not counted as a request's. */
export const asBackground = <T>(work: () => Promise<T>) => background.run(true, work);

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;

export function diagnose(pool: pg.Pool) {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let utilization: EventLoopUtilization = performance.eventLoopUtilization();
  let phase: Phase = fresh("quiet");
  // Every 5 s of the sweep, the same figures for those seconds, to set beside the readers' windows.
  const windowLoop = monitorEventLoopDelay({ resolution: 5 });
  windowLoop.enable();
  let windowWaits: number[] = [];
  setInterval(() => {
    if (phase.name === "sweep") {
      const waits = windowWaits.sort((a, b) => a - b);
      console.log(
        `  sweep 5 s: request pool wait p99 ${quantile(waits, 0.99).toFixed(1)} max ${(waits.at(-1) ?? 0).toFixed(1)} ms; loop delay p99 ${(windowLoop.percentile(99) / 1e6).toFixed(1)} max ${(windowLoop.max / 1e6).toFixed(1)} ms`,
      );
    }
    windowLoop.reset();
    windowWaits = [];
  }, 5000).unref();

  const checkout = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
    if (background.getStore()) return checkout();
    // Queued: no idle connection and none may be opened, so it waits for one to be released (load-independent).
    if (pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? 10)) phase.queued += 1;
    const started = performance.now();
    const client = await checkout();
    const waited = performance.now() - started;
    phase.poolWaits.push(waited);
    windowWaits.push(waited);
    return client;
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const gc = phase.gc;
      gc.count += 1;
      gc.ms += entry.duration;
      gc.max = Math.max(gc.max, entry.duration);
      if (((entry as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        gc.major += 1;
        gc.majorMs += entry.duration;
      }
    }
  }).observe({ entryTypes: ["gc"] });

  function fresh(name: string): Phase {
    return { name, poolWaits: [], queued: 0, gc: { count: 0, ms: 0, max: 0, major: 0, majorMs: 0 } };
  }

  /** Prints the phase that ends and starts `next`. */
  return (next: string) => {
    const waits = [...phase.poolWaits].sort((a, b) => a - b);
    const used = performance.eventLoopUtilization(utilization);
    const ms = (ns: number) => (ns / 1e6).toFixed(1);
    const { gc } = phase;
    console.log(
      `[${phase.name}] pool wait of requests: ${waits.length} checkouts, ${phase.queued} queued (${((phase.queued / Math.max(waits.length, 1)) * 100).toFixed(1)}%), ${waits.filter((w) => w > 1).length} waited > 1 ms, p50 ${quantile(waits, 0.5).toFixed(2)} p99 ${quantile(waits, 0.99).toFixed(2)} max ${(waits.at(-1) ?? 0).toFixed(1)} ms` +
        ` | loop delay p50 ${ms(loop.percentile(50))} p99 ${ms(loop.percentile(99))} max ${ms(loop.max)} ms, utilization ${(used.utilization * 100).toFixed(0)}%` +
        ` | gc ${gc.count} pauses ${gc.ms.toFixed(0)} ms (max ${gc.max.toFixed(1)}), major ${gc.major} ${gc.majorMs.toFixed(0)} ms; heap used ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`,
    );
    loop.reset();
    utilization = performance.eventLoopUtilization();
    phase = fresh(next);
  };
}
