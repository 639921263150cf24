import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/context.ts";
import { createCustomer, createLicenseKey, createOrganization } from "../helpers/factories.ts";
import { perProcessStart, spawnProject, stopSpawned } from "../helpers/process.ts";

/**
 * Two API processes on one database: the public license-key rate limit holds across them with
 * `RATE_LIMIT_STORE=postgres` and is counted per process with the default `memory` store; a key's
 * activation limit holds across them either way (it is a row lock, not a counter).
 */
const PER_KEY = 4;

let ctx: TestContext;
let dataDir: string;
let orgId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-rate-limits-"));
  orgId = (await createOrganization(ctx.deps, "Limits Co")).id;
});
afterEach(stopSpawned);
afterAll(async () => {
  await ctx.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function startApi(store: string): Promise<string> {
  const server = spawnProject(["src/server.ts"], {
    DATABASE_URL: ctx.database.url,
    DATA_DIR: dataDir,
    SECRET_KEY: ctx.deps.secret,
    LOG_LEVEL: "info",
    PORT: "0",
    WORKER_ENABLED: "false",
    RATE_LIMIT_STORE: store,
    LICENSE_KEY_RATE_LIMIT_PER_KEY: String(PER_KEY),
  });
  const [, url] = await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
  await server.waitFor(/"msg":"ready"/);
  return url!;
}

const post = (base: string, action: string, body: Record<string, unknown>) =>
  fetch(`${base}/v1/customer-portal/license-keys/${action}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ organization_id: orgId, ...body }),
  });

/** `count` validations of one key, alternating between the processes, one after another: their statuses. */
async function alternate(apis: string[], key: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) statuses.push((await post(apis[i % apis.length]!, "validate", { key })).status);
  return statuses;
}

describe("rate limits across two API processes", () => {
  it(
    "RATE_LIMIT_STORE=postgres: one key's limit holds across the processes; activation limits hold too",
    async () => {
      const apis = await Promise.all([startApi("postgres"), startApi("postgres")]);
      const statuses = await alternate(apis, "TEST-SHARED", 2 * PER_KEY);
      expect(statuses).toEqual([...Array<number>(PER_KEY).fill(404), ...Array<number>(PER_KEY).fill(429)]);

      // As many devices at once as the rate limit lets through, half through each process, on a key allowing two activations.
      const customer = await createCustomer(ctx.deps, orgId);
      const key = await createLicenseKey(ctx.deps, orgId, customer.id, { limit_activations: 2 });
      const activations = await Promise.all(
        Array.from({ length: PER_KEY }, (_, i) => post(apis[i % 2]!, "activate", { key: key.key, label: `device-${i}` })),
      );
      expect(activations.map((response) => response.status).sort()).toEqual([200, 200, 403, 403]);
      const stored = await ctx.deps.db
        .selectFrom("license_key_activations")
        .select("id")
        .where("license_key_id", "=", key.id)
        .where("deleted_at", "is", null)
        .execute();
      expect(stored).toHaveLength(2);
    },
    perProcessStart(2),
  );

  it(
    "RATE_LIMIT_STORE=memory (the default): each process counts its own window",
    async () => {
      const apis = await Promise.all([startApi("memory"), startApi("memory")]);
      expect(await alternate(apis, "TEST-PER-PROCESS", 2 * PER_KEY)).toEqual(Array<number>(2 * PER_KEY).fill(404));
      expect((await post(apis[0], "validate", { key: "TEST-PER-PROCESS" })).status).toBe(429);
    },
    perProcessStart(2),
  );
});
