/**
 * The renewal sweep: BENCH_SUBSCRIPTIONS (default 10,000) monthly subscriptions due at the same
 * instant, each renewed with a `subscription_cycle` order and charged off-session through the
 * sandbox processor. Reports, side by side in one run: the sweep's renewals per second against a
 * floor writing the same rows per renewal as bare statements (subscription-renewals.floor.ts, one
 * transaction per renewal, as many at once as the sweep), run in halves before and after the sweep
 * (target: at least 50 %); and the p99 of `GET /v1/subscriptions/{id}` in every 5-second window of
 * the sweep against the quiet windows before and after it (target: at most 2× in every window). The
 * readers run throughout, floor included. The server, its sweep and the floor run in a child
 * process, as in a deployment (the worker shares the API's process, on a pool of its own:
 * src/runtime.ts, `workerPool`; BENCH_SHARED_POOL=1 puts the sweep and the floor on the requests'
 * pool instead); the load generator is the parent. The child prints, per phase, how long requests
 * waited for a connection, the event loop's delay and the GC's pauses (subscription-renewals.diagnostics.ts).
 *
 *   node --import tsx bench/subscription-renewals.ts   (BENCH_SUBSCRIPTIONS, default 10000; BENCH_SECONDS of quiet windows before and after, default 10)
 */
import autocannon from "autocannon";
import { fork } from "node:child_process";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { buildApp } from "../src/app.ts";
import { connect } from "../src/db/connection.ts";
import { benchDatabase } from "./bench-database.ts";
import { asBackground, diagnose } from "./subscription-renewals.diagnostics.ts";
import { renewalWorld } from "./subscription-renewals.world.ts";

const SUBSCRIPTIONS = Math.min(Number(process.env.BENCH_SUBSCRIPTIONS ?? 10_000), 100_000);
const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 10), 60);
const CONNECTIONS = 10;
const POOL_SIZE = 10;

/** As many renewals at once as the sweep runs (renew-subscriptions.ts). */
const SWEEP_CONCURRENCY = 3;

type Ready = { port: number; path: string; token: string };
type Swept = { renewed: number; ms: number };
type Floored = { perSecond: number };

/** Child: a database with the due subscriptions, the app listening, and the sweep on the parent's word. */
async function serve(): Promise<void> {
  const database = await benchDatabase("bench-renewals");
  const connection = connect(database.url, POOL_SIZE);
  // BENCH_SHARED_POOL=1: the sweep and the floor on the requests' pool, as before the worker had its own.
  const jobs = process.env.BENCH_SHARED_POOL ? connection : connect(database.url, POOL_SIZE);
  const world = await renewalWorld(connection, SUBSCRIPTIONS, database.name, jobs);
  const { deps, services, floor, floorSubscriptions } = world;
  const app = await buildApp(deps, { logger: false, services });
  const phase = diagnose(connection.pool);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.send?.({ port, path: `/v1/subscriptions/${world.sampleId}`, token: world.token } satisfies Ready);
  process.on("message", (message) => {
    if (typeof message === "object" && message && "floor" in message) {
      const count = Number(message.floor);
      phase("floor");
      void asBackground(() => floor(floorSubscriptions.splice(0, count), SWEEP_CONCURRENCY)).then((perSecond) => {
        phase("quiet");
        process.send?.({ perSecond } satisfies Floored);
      });
    } else if (message === "sweep") {
      world.passPeriodEnd();
      const started = performance.now();
      phase("sweep");
      void asBackground(() => world.renewals.sweep()).then((done) => {
        const ms = performance.now() - started;
        phase("quiet");
        process.send?.({ renewed: done.renewed, ms } satisfies Swept);
      });
    } else {
      phase("end");
      void app
        .close()
        .then(() => (jobs === connection ? undefined : jobs.close()))
        .then(() => connection.close())
        .then(() => database.stop())
        .then(() => process.exit(0));
    }
  });
}

const load = (ready: Ready, seconds: number) =>
  autocannon({
    url: `http://127.0.0.1:${ready.port}${ready.path}`,
    headers: { authorization: `Bearer ${ready.token}` },
    connections: CONNECTIONS,
    duration: seconds,
  });

async function measure(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: ["--import", "tsx"] });
  const messages: unknown[] = [];
  const waiters: ((message: unknown) => void)[] = [];
  child.on("message", (message) => {
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else messages.push(message);
  });
  const next = <T>() =>
    new Promise<T>((resolve) => (messages.length ? resolve(messages.shift() as T) : waiters.push((m) => resolve(m as T))));
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  try {
    const ready = await next<Ready>();
    await load(ready, 2);
    /** 5-second windows of the readers until `done` settles (at least one). */
    const windowsUntil = async (done: Promise<unknown>) => {
      let settled = false;
      void done.then(() => (settled = true));
      const windows: autocannon.Result[] = [];
      do windows.push(await load(ready, 5));
      while (!settled);
      return windows;
    };
    const quietFor = async (seconds: number) => {
      const windows: autocannon.Result[] = [];
      for (let i = 0; i < Math.max(1, Math.round(seconds / 5)); i += 1) windows.push(await load(ready, 5));
      return windows;
    };
    const floorHalf = async () => {
      child.send({ floor: Math.floor(SUBSCRIPTIONS / 2) });
      const floored = next<Floored>();
      await windowsUntil(floored);
      return (await floored).perSecond;
    };
    const quietBefore = await quietFor(SECONDS);
    const floorBefore = await floorHalf();
    // The clock passes the period end: every subscription is due now.
    child.send("sweep");
    const swept = next<Swept>();
    // BENCH_QUIET_SWEEP=1: the sweep alone, for its throughput without readers.
    if (process.env.BENCH_QUIET_SWEEP) await swept;
    const during = await windowsUntil(swept);
    const result = await swept;
    const floorAfter = await floorHalf();
    const quietAfter = await quietFor(SECONDS);
    report({ quiet: [...quietBefore, ...quietAfter], during, result, floor: [floorBefore, floorAfter] });
  } finally {
    child.send("stop");
  }
}

function report(run: { quiet: autocannon.Result[]; during: autocannon.Result[]; result: Swept; floor: number[] }): void {
  const { quiet, during, result, floor } = run;
  const p99s = (windows: autocannon.Result[]) => windows.map((r) => r.latency.p99).sort((a, b) => a - b);
  const quietP99 = Math.max(p99s(quiet)[Math.floor(quiet.length / 2)]!, 1);
  const rate = (result.renewed / result.ms) * 1000;
  const floorRate = floor.reduce((sum, r) => sum + r, 0) / floor.length;
  console.log(`${SUBSCRIPTIONS} subscriptions due at once, ${CONNECTIONS} connections reading one subscription, pool ${POOL_SIZE}`);
  console.log(`sweep: ${result.renewed} renewals in ${(result.ms / 1000).toFixed(1)} s = ${rate.toFixed(1)} renewals/s`);
  console.log(
    `floor (same rows as bare statements, ${SWEEP_CONCURRENCY} at once): ${floor.map((r) => r.toFixed(1)).join(" before, ")} after = ${floorRate.toFixed(1)} renewals/s`,
  );
  console.log(`sweep / floor: ${((rate / floorRate) * 100).toFixed(1)}% (target 50%)`);
  console.log(
    `GET /v1/subscriptions/{id} without sweep: p99 ${quietP99} ms (median of ${quiet.length} 5-s windows before and after: ${p99s(quiet).join(", ")} ms)`,
  );
  const ratios = during.map((r) => r.latency.p99 / quietP99);
  console.log(
    `during the sweep, p99 per 5-s window: ${during.map((r) => r.latency.p99).join(", ")} ms; worst ${Math.max(...ratios).toFixed(2)}×, median ${[...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!.toFixed(2)}× (ceiling 2× in every window); ${ratios.filter((r) => r > 2).length} of ${ratios.length} windows above`,
  );
  const failed = [...quiet, ...during].reduce((sum, r) => sum + r.errors + r.non2xx, 0);
  if (failed > 0) console.log(`warning: ${failed} reads did not answer 200`);
}

if (process.argv.includes("--serve")) await serve();
else await measure();
