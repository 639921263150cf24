import { access, mkdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { OrderRow } from "../../src/modules/orders/orders.table.ts";
import { ABANDONED_WRITE_AGE_MS } from "../../src/adapters/blob-stores/configured-blob-store.ts";
import { createCustomer, createOrder, createOrganization, createOrganizationToken } from "../helpers/factories.ts";
import { perProcessStart, spawnProject, stopSpawned, type Spawned } from "../helpers/process.ts";
import { documentsContext, orderUpdatedEvents } from "../modules/orders/order-documents-helpers.ts";

/** Two API processes without workers and one `commerce-api worker`, on one database. */
const ORDERS = 10;

let ctx: Awaited<ReturnType<typeof documentsContext>>;
let token: string;
let orders: OrderRow[];

beforeAll(async () => {
  ctx = await documentsContext();
  const orgId = (await createOrganization(ctx.deps, "Split Co")).id;
  token = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
  const customer = await createCustomer(ctx.deps, orgId);
  orders = [];
  for (let i = 0; i < ORDERS; i++) orders.push(await createOrder(ctx.deps, orgId, { customer, product: null }));
}, 60_000);
afterEach(stopSpawned);
afterAll(() => ctx.close());

const env = () => ({ DATABASE_URL: ctx.database.url, DATA_DIR: ctx.dataDir, SECRET_KEY: ctx.deps.secret, LOG_LEVEL: "info" });

async function startApi(): Promise<{ server: Spawned; url: string }> {
  const server = spawnProject(["src/server.ts"], { ...env(), PORT: "0", WORKER_ENABLED: "false" });
  const [, url] = await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
  await server.waitFor(/"msg":"ready"/);
  return { server, url: url! };
}

/** How many leftovers of interrupted writes a process's start removed, once it has said. */
const removedAtStart = async (process: Spawned) =>
  Number((await process.waitFor(/"removed":(\d+),"msg":"removed what interrupted blob writes left"/))[1]);

const generated = async () =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM orders WHERE invoice_path IS NOT NULL`.execute(ctx.deps.db)).rows[0]!.n);

describe("API processes and a separate worker process", () => {
  it(
    "the API processes run no job; the worker runs each job once",
    async () => {
      // A temporary file that a crash left long ago, in the folder the three processes share.
      const leftover = path.join(ctx.dataDir, "blobs", "invoices", "gone", "order.pdf.00000000000a.tmp");
      await mkdir(path.dirname(leftover), { recursive: true });
      await writeFile(leftover, "partial");
      const longAgo = (Date.now() - ABANDONED_WRITE_AGE_MS - 60_000) / 1000;
      await utimes(leftover, longAgo, longAgo);

      const apis = [await startApi(), await startApi()];
      for (const [i, order] of orders.entries()) {
        const response = await fetch(`${apis[i % 2]!.url}/v1/orders/${order.id}/invoice`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}` },
        });
        expect(response.status).toBe(202);
      }
      // Nothing runs jobs yet: the API processes hold no worker lease and generate nothing.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(await generated()).toBe(0);
      expect(Number((await sql<{ n: string }>`SELECT count(*) AS n FROM worker_leases`.execute(ctx.deps.db)).rows[0]!.n)).toBe(0);

      const worker = spawnProject(["src/cli.ts", "worker"], { ...env(), WORKER_CONCURRENCY: "2" });
      await worker.waitFor(/"msg":"worker ready"/);
      // Each process sweeps the shared folder at its start; the leftover is removed, and counted, once.
      expect((await removedAtStart(apis[0]!.server)) + (await removedAtStart(apis[1]!.server)) + (await removedAtStart(worker))).toBe(1);
      await expect(access(leftover)).rejects.toThrow(/ENOENT/);
      const deadline = Date.now() + perProcessStart(1) / 2;
      while ((await generated()) < ORDERS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await generated()).toBe(ORDERS);
      for (const order of orders) expect(await orderUpdatedEvents(ctx.deps, order.id)).toHaveLength(1);
      const leases = await sql<{ n: string }>`SELECT count(DISTINCT lease_key) AS n FROM worker_leases`.execute(ctx.deps.db);
      expect(Number(leases.rows[0]!.n)).toBe(1);

      worker.child.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
      expect(worker.output()).toContain('"msg":"stopped"');
    },
    perProcessStart(3),
  );

  it("refuses to start without DATABASE_URL", async () => {
    const worker = spawnProject(["src/cli.ts", "worker"], { DATA_DIR: ctx.dataDir });
    expect(await worker.exited).toBe(1);
    expect(worker.output()).toContain("commerce-api worker needs DATABASE_URL");
  });
});
