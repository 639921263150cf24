/**
 * The hosted checkout page, side by side with its baselines in one run, all served by one app
 * process (a child, so the load generator and the browser do not share its event loop):
 *
 * - the script the page carries inline, gzipped, against the 60 KB budget;
 * - time to interactive in Chromium (the page's `checkout-interactive` mark) against a static HTML
 *   page of the same size from the same process (its DOMContentLoaded end), fresh browser context
 *   per load, alternating, median of each (Performance API);
 * - HTML throughput of GET /checkout/{client_secret} against GET /v1/checkouts/client/{client_secret}.
 *
 *   node --import tsx bench/checkout-page.ts   (BENCH_SECONDS per measurement, default 10; BENCH_ROUNDS, default 3; BENCH_LOADS, default 40)
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { buildServices } from "../src/services.ts";
import { CHROMIUM_PATH } from "../test/helpers/chromium.ts";
import { benchDatabase } from "./bench-database.ts";
import { announceReady, withServerProcess } from "./harness.ts";

const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 10), 60);
const ROUNDS = Math.min(Number(process.env.BENCH_ROUNDS ?? 3), 10);
const LOADS = Math.min(Number(process.env.BENCH_LOADS ?? 40), 200);
const CONNECTIONS = 50;
const SCRIPT_BUDGET = 60 * 1024;

type Ready = { port: number; secret: string };

/** Child: database, one organization with three products, one open checkout, the app listening. */
async function serve(): Promise<void> {
  const database = await benchDatabase("bench-checkout-page");
  const connection = connect(database.url, 10);
  await migrateToLatest(connection.db, connection.pool);
  const config = loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent", ENVIRONMENT: "sandbox" });
  const deps = { db: connection.db, readDb: connection.db, config, secret: randomBytes(32).toString("hex"), now: () => new Date() };
  const org = await createOrganizationService(deps).create({ name: "Bench", slug: `bench-${database.name}` });
  const services = buildServices(deps);
  const owner = { kind: "user", tokenId: "bench", scopes: "all" } as const;
  const products: string[] = [];
  for (let i = 0; i < 3; i += 1) {
    const prices = [{ amount_type: "fixed" as const, price_amount: 2500 + i * 500, price_currency: "usd" as const }];
    products.push(
      (await services.products.create(owner, { organization_id: org.id, name: `Product ${i}`, description: "A product", prices })).id,
    );
  }
  const checkout = await services.checkouts.create({ products }, [org.id]);
  const app = await buildApp(deps, { logger: false, services });
  // The baseline: a static page of the page's size, from the same process.
  let staticPage = "";
  app.get("/bench/static", { schema: { hide: true } }, async (_request, reply) => reply.type("text/html; charset=utf-8").send(staticPage));
  const pageSize = (await app.inject({ method: "GET", url: `/checkout/${checkout.client_secret}` })).body.length;
  const filler = "<p>Static baseline text.</p>\n";
  const head = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Static</title></head><body>\n';
  staticPage = head + filler.repeat(Math.ceil((pageSize - head.length) / filler.length)) + "</body></html>";
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  announceReady({ port: address.port, secret: checkout.client_secret } satisfies Ready, async () => {
    await app.close();
    await connection.close();
    await database.stop();
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** The page's inline script, gzipped as a compressing proxy would send it. */
async function scriptSize(base: string, secret: string): Promise<number> {
  const html = await (await fetch(`${base}/checkout/${secret}`)).text();
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (!script) throw new Error("the page carries no script");
  return gzipSync(script, { level: 9 }).length;
}

async function interactive(base: string, secret: string): Promise<{ page: number; static: number }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH });
  const times = { page: [] as number[], static: [] as number[] };
  try {
    for (let i = 0; i < LOADS; i += 1) {
      for (const kind of ["page", "static"] as const) {
        const context = await browser.newContext();
        const tab = await context.newPage();
        if (kind === "page") {
          await tab.goto(`${base}/checkout/${secret}`);
          await tab.waitForSelector("html[data-ready]");
          times.page.push(await tab.evaluate<number>('performance.getEntriesByName("checkout-interactive")[0].startTime'));
        } else {
          await tab.goto(`${base}/bench/static`, { waitUntil: "load" });
          times.static.push(await tab.evaluate<number>('performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd'));
        }
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
  return { page: median(times.page), static: median(times.static) };
}

async function throughput(url: string): Promise<number> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

async function main(): Promise<void> {
  await withServerProcess<Ready>(import.meta.url, SECONDS * ROUNDS * 2 + LOADS * 2 + 240, async ({ port, secret }) => {
    const base = `http://127.0.0.1:${port}`;
    const size = await scriptSize(base, secret);
    console.log(`script: ${size} bytes gzipped (budget ${SCRIPT_BUDGET}, ${size < SCRIPT_BUDGET ? "within" : "OVER"})`);

    const time = await interactive(base, secret);
    const timeRatio = time.page / time.static;
    console.log(
      `interactive (median of ${LOADS}): page ${time.page.toFixed(1)} ms, static page of the same size ${time.static.toFixed(1)} ms, ` +
        `ratio ${timeRatio.toFixed(2)} (target ≤ 2, ${timeRatio <= 2 ? "met" : "NOT met"})`,
    );

    const json: number[] = [];
    const html: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      json.push(await throughput(`${base}/v1/checkouts/client/${secret}`));
      html.push(await throughput(`${base}/checkout/${secret}`));
      console.log(`round ${round + 1}: JSON ${json[round]!.toFixed(0)} req/s, page ${html[round]!.toFixed(0)} req/s`);
    }
    const ratio = median(html) / median(json);
    console.log(
      `throughput (median of ${ROUNDS} × ${SECONDS} s, ${CONNECTIONS} connections): page ${median(html).toFixed(0)} req/s, ` +
        `client JSON ${median(json).toFixed(0)} req/s, ratio ${(ratio * 100).toFixed(1)}% (target ≥ 85%, ${ratio >= 0.85 ? "met" : "NOT met"})`,
    );
  });
}

if (process.argv.includes("--serve")) await serve();
else await main();
