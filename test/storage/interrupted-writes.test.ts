import type { ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { watch } from "node:fs";
import { mkdir, readdir, readFile, utimes } from "node:fs/promises";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { OrderRow } from "../../src/modules/orders/orders.table.ts";
import { ABANDONED_WRITE_AGE_MS } from "../../src/adapters/blob-stores/configured-blob-store.ts";
import { LocalBlobStore } from "../../src/adapters/blob-stores/local-blob-store.ts";
import type { TestContext } from "../helpers/context.ts";
import { createOrderBacklog, createOrganization, createOrganizationToken } from "../helpers/factories.ts";
import { perProcessStart, spawnProject, stopSpawned, type Spawned } from "../helpers/process.ts";
import { PUBLIC_BASE_URL, documentsContext } from "../modules/orders/order-documents-helpers.ts";

/** Invoices the server writes, one after another; the kill lands in one of them. */
const ORDERS = 60;
/** Invoices left to finish before the writer is stopped, so the kill lands among stored documents. */
const STORED_BEFORE_KILL = 10;
/** The local store's temporary files: `<key>.<12 hex digits>.tmp` and `….tmp.meta`. */
const TEMP_FILE = /\.[0-9a-f]{12}\.tmp(\.meta)?$/;

let ctx: TestContext & { dataDir: string };
let orgId: string;
let token: string;
let orders: OrderRow[];

beforeAll(async () => {
  ctx = await documentsContext();
  orgId = (await createOrganization(ctx.deps, "Crash Co")).id;
  token = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
  orders = await createOrderBacklog(ctx.deps, orgId, ORDERS);
}, 60_000);
afterEach(stopSpawned);
afterAll(() => ctx.close());

const startServer = async (): Promise<Spawned> => {
  // One worker: invoices are written one after another, each write a moment between renders.
  const server = spawnProject(["src/server.ts"], {
    DATABASE_URL: ctx.database.url,
    DATA_DIR: ctx.dataDir,
    SECRET_KEY: ctx.deps.secret,
    PUBLIC_BASE_URL,
    PORT: "0",
    LOG_LEVEL: "info",
    WORKER_ENABLED: "true",
    WORKER_CONCURRENCY: "1",
  });
  await server.waitFor(/"msg":"ready"/);
  return server;
};

/**
 * Stops the process (SIGSTOP) when it creates a temporary file in `folder`, and resolves with the
 * temporary files on disk once it is stopped with some there. When a stop lands after the write
 * was renamed into place, the process goes on (SIGCONT) to its next write: the kill that follows
 * always lands in the middle of a write, not in 3 runs of 9.
 */
function stopInTheMiddleOfAWrite(child: ChildProcess, folder: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let stored = 0;
    let stopped = false;
    const watcher = watch(folder, (_event, name) => {
      if (stopped || !name) return;
      // A document renamed into place.
      if (name.endsWith(".pdf")) stored += 1;
      if (stored < STORED_BEFORE_KILL || !TEMP_FILE.test(name)) return;
      child.kill("SIGSTOP");
      stopped = true;
      void readdir(folder).then((names) => {
        const left = names.filter((candidate) => TEMP_FILE.test(candidate));
        if (left.length > 0) {
          watcher.close();
          resolve(left.sort());
        } else {
          child.kill("SIGCONT");
          stopped = false;
        }
      }, reject);
    });
    child.once("exit", () => {
      watcher.close();
      reject(new Error("the server stopped before a write could be interrupted"));
    });
  });
}

/** Every file under `folder`, relative to it. */
const filesUnder = async (folder: string): Promise<string[]> =>
  (await readdir(folder, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();

const generatedCount = async () =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM orders WHERE invoice_path IS NOT NULL`.execute(ctx.deps.db)).rows[0]!.n);

describe("a write interrupted by a crash", () => {
  it(
    "leaves temporary files that a live process's start keeps and the next start after the crash removes",
    async () => {
      const blobs = path.join(ctx.dataDir, "blobs");
      const folder = path.join(blobs, "invoices", orgId);
      // Made before the server writes, so the watch sees its first file.
      await mkdir(folder, { recursive: true });
      for (const order of orders) {
        const response = await ctx.request({ method: "POST", url: `/v1/orders/${order.id}/invoice`, token });
        expect(response.statusCode, response.body).toBe(202);
      }

      const first = await startServer();
      const left = await stopInTheMiddleOfAWrite(first.child, folder);
      // The process is alive, stopped in its write: a start beside it (the sweep every start runs,
      // on the same folder) leaves that write alone.
      const beside = new LocalBlobStore(blobs, PUBLIC_BASE_URL, ctx.deps.secret, () => new Date());
      expect(await beside.removeAbandonedWrites(new Date(Date.now() - ABANDONED_WRITE_AGE_MS))).toBe(0);
      first.child.kill("SIGKILL");
      await first.exited;
      expect((await readdir(folder)).filter((name) => TEMP_FILE.test(name)).sort()).toEqual(left);
      expect(await generatedCount()).toBeLessThan(ORDERS);

      // The restart comes after the threshold: every file is made that much older, as it would be.
      const then = (Date.now() - ABANDONED_WRITE_AGE_MS - 60_000) / 1000;
      for (const file of await filesUnder(blobs)) await utimes(path.join(blobs, file), then, then);

      const second = await startServer();
      try {
        const [, removed] = await second.waitFor(/"removed":(\d+),"msg":"removed what interrupted blob writes left"/);
        expect(Number(removed)).toBe(left.length);
        await vi.waitFor(async () => expect(await generatedCount()).toBe(ORDERS), { timeout: perProcessStart(1) - 10_000, interval: 100 });
      } finally {
        second.child.kill("SIGTERM");
        await second.exited;
      }

      // One file and its metadata per stored document, each the bytes its checksum describes; nothing else.
      const rows = await ctx.deps.db
        .selectFrom("orders")
        .select(["invoice_path", "invoice_checksum"])
        .where("organization_id", "=", orgId)
        .execute();
      expect(rows).toHaveLength(ORDERS);
      expect(await filesUnder(blobs)).toEqual(rows.flatMap((row) => [row.invoice_path!, `${row.invoice_path!}.meta.json`]).sort());
      for (const row of rows) {
        expect(
          createHash("sha256")
            .update(await readFile(path.join(blobs, row.invoice_path!)))
            .digest("hex"),
        ).toBe(row.invoice_checksum);
      }
    },
    perProcessStart(2),
  );
});
