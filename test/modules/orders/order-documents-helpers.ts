import { Logger, runOnce } from "graphile-worker";
import { sql } from "kysely";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Deps } from "../../../src/context.ts";
import { orderDocumentTasks } from "../../../src/modules/orders/order-documents.tasks.ts";
import type { BadInputCase } from "../../helpers/bad-inputs.ts";
import { queuedJobs } from "../../helpers/jobs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrder, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import type { OrderRow } from "../../../src/modules/orders/orders.table.ts";

export const PUBLIC_BASE_URL = "http://api.test";

/** A test context whose local blob store lives in a temporary folder, removed by `close`. */
export async function documentsContext(): Promise<TestContext & { dataDir: string }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-documents-"));
  const ctx = await createTestContext({ env: { DATA_DIR: dataDir, PUBLIC_BASE_URL } });
  return {
    ...ctx,
    dataDir,
    request: ctx.request,
    close: async () => {
      await ctx.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

// Quiet but for a task's failure, which a test then shows with the job it left queued (a job that
// stayed after its run was seen once in a full run, never alone).
const failuresLogger = new Logger(() => (level, message) => {
  if (String(level) === "error") console.error(`[graphile-worker] ${message}`);
});

/** Runs every pending invoice and receipt job through graphile-worker, as the server's worker would. */
export async function runDocumentJobs(ctx: TestContext): Promise<void> {
  await runOnce({
    pgPool: ctx.database.pool,
    taskList: orderDocumentTasks(ctx.deps, ctx.services.blobs),
    noHandleSignals: true,
    logger: failuresLogger,
  });
}

/** Downloads a local-store link through the app itself. */
export const download = (ctx: TestContext, url: string) => ctx.request({ method: "GET", url: url.replace(PUBLIC_BASE_URL, "") });

/** Jobs waiting under a job key: their task, payload, and `revision` (how often the job was re-enqueued). */
export const jobsWithKey = async (deps: Deps, key: string) =>
  (await queuedJobs(deps.db, { key })).map(({ task, revision, payload }) => ({ task_identifier: task, revision, payload }));

/** `order.updated` events recorded for an order, oldest first. */
export const orderUpdatedEvents = async (deps: Deps, orderId: string) =>
  (
    await deps.db
      .selectFrom("webhook_events")
      .select("payload")
      .where("type", "=", "order.updated")
      .where(sql<boolean>`payload->'data'->>'id' = ${orderId}`)
      .orderBy("created_at")
      .execute()
  ).map((row) => (row.payload as unknown as { data: { is_invoice_generated: boolean; invoice_number: string } }).data);

export const orderRow = (deps: Deps, id: string) => deps.db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** The refusals every document route shares: ids, tokens, scopes and other organizations. */
export function documentRouteBadInputs(
  method: "GET" | "POST",
  url: (id: string) => string,
  tokens: () => { read: string; other: string; noScope: string },
  orderOf: () => { own: string; foreign: string },
  /** Portal routes refuse an organization token as the wrong kind of principal: 401. */
  noScopeStatus: 401 | 403 = 403,
): BadInputCase[] {
  const unknown = "4b0c0c25-7a0f-4c35-9d2a-1f5c3c1d2e3f";
  return [
    { name: "a non-UUID id", request: () => ({ method, url: url("not-a-uuid"), token: tokens().read }), status: 422, loc: ["path", "id"] },
    {
      name: "an overlong id",
      request: () => ({ method, url: url("a".repeat(5000)), token: tokens().read }),
      status: 422,
      loc: ["path", "id"],
    },
    {
      name: "an unknown order",
      request: () => ({ method, url: url(unknown), token: tokens().read }),
      status: 404,
      error: "ResourceNotFound",
    },
    {
      name: "another organization's order",
      request: () => ({ method, url: url(orderOf().foreign), token: tokens().read }),
      status: 404,
      error: "ResourceNotFound",
    },
    {
      name: "the order under another organization's or customer's credentials",
      request: () => ({ method, url: url(orderOf().own), token: tokens().other }),
      status: 404,
      error: "ResourceNotFound",
    },
    { name: "no token", request: () => ({ method, url: url(orderOf().own), token: null }), status: 401 },
    {
      name: "a wrong token",
      request: () => ({ method, url: url(orderOf().own), token: "polar_oat_nottherealtokenatall000000000000000" }),
      status: 401,
    },
    {
      name: "a token without the scope",
      request: () => ({ method, url: url(orderOf().own), token: tokens().noScope }),
      status: noScopeStatus,
    },
  ];
}

/** An organization with an `orders:read` token, plus what the refusal cases need around it. */
export interface OrganizationFixture {
  orgId: string;
  readToken: string;
  /** `orders:read` of another organization. */
  otherToken: string;
  /** The organization's token without an orders scope. */
  noScopeToken: string;
  /** An order of the other organization. */
  otherOrder: OrderRow;
}

export async function organizationFixture(deps: Deps, name: string): Promise<OrganizationFixture> {
  const orgId = (await createOrganization(deps, name)).id;
  const otherOrgId = (await createOrganization(deps)).id;
  return {
    orgId,
    readToken: await createOrganizationToken(deps, orgId, ["orders:read"]),
    otherToken: await createOrganizationToken(deps, otherOrgId, ["orders:read", "orders:write"]),
    noScopeToken: await createOrganizationToken(deps, orgId, ["products:read"]),
    otherOrder: await createOrder(deps, otherOrgId),
  };
}
