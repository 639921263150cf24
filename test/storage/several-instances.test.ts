import type { FastifyInstance } from "fastify";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import type { TestContext } from "../helpers/context.ts";
import { createTestContext, testConfig } from "../helpers/context.ts";
import { createOrder, createOrganization, createOrganizationToken } from "../helpers/factories.ts";
import { startTestS3, type TestS3 } from "../helpers/s3.ts";
import { PUBLIC_BASE_URL, documentsContext, download, runDocumentJobs } from "../modules/orders/order-documents-helpers.ts";

/**
 * Two instances of the API on one database, as behind a load balancer: the invoice is written by
 * the first one's worker. With local storage only that instance has the file; with S3 both do.
 */
async function secondInstance(ctx: TestContext, env: Record<string, string>): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-second-"));
  const app = await buildApp({ ...ctx.deps, config: testConfig({ ...env, DATA_DIR: dataDir }) }, { logger: false });
  return {
    app,
    close: async () => {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function invoicedOrder(ctx: TestContext) {
  const orgId = (await createOrganization(ctx.deps)).id;
  const token = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
  const order = await createOrder(ctx.deps, orgId);
  expect((await ctx.request({ method: "POST", url: `/v1/orders/${order.id}/invoice`, token })).statusCode).toBe(202);
  await runDocumentJobs(ctx);
  return { url: `/v1/orders/${order.id}/invoice`, headers: { authorization: `Bearer ${token}` } };
}

describe("local storage on several instances", () => {
  let ctx: Awaited<ReturnType<typeof documentsContext>>;
  let second: Awaited<ReturnType<typeof secondInstance>>;
  beforeAll(async () => {
    ctx = await documentsContext();
    second = await secondInstance(ctx, { PUBLIC_BASE_URL });
  });
  afterAll(async () => {
    await second.close();
    await ctx.close();
  });

  it("refuses to link a file this instance does not have, and links it where it is", async () => {
    const invoice = await invoicedOrder(ctx);
    const elsewhere = await second.app.inject({ method: "GET", ...invoice });
    expect(elsewhere.statusCode, elsewhere.body).toBe(503);
    expect(elsewhere.headers["retry-after"]).toBe("5");
    expect(elsewhere.json()).toEqual({ error: "DocumentUnavailable", detail: expect.stringContaining("STORAGE_DRIVER=s3") as string });

    const here = await ctx.request({ method: "GET", ...invoice });
    expect(here.statusCode, here.body).toBe(200);
    const file = await download(ctx, here.json<{ url: string }>().url);
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.subarray(0, 5).toString()).toBe("%PDF-");
  });
});

describe("S3 storage on several instances", () => {
  let s3: TestS3;
  let ctx: TestContext;
  let second: Awaited<ReturnType<typeof secondInstance>>;
  beforeAll(async () => {
    s3 = await startTestS3("commerce-shared");
    const env = {
      STORAGE_DRIVER: "s3",
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: "true",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
    };
    ctx = await createTestContext({ env });
    second = await secondInstance(ctx, env);
  });
  afterAll(async () => {
    await second.close();
    await ctx.close();
    await s3.stop();
  });

  it("links the invoice from either instance, and the link downloads it", async () => {
    const invoice = await invoicedOrder(ctx);
    for (const app of [ctx.app, second.app]) {
      const response = await app.inject({ method: "GET", ...invoice });
      expect(response.statusCode, response.body).toBe(200);
      const file = await fetch(response.json<{ url: string }>().url);
      expect(file.status).toBe(200);
      expect(
        Buffer.from(await file.arrayBuffer())
          .subarray(0, 5)
          .toString(),
      ).toBe("%PDF-");
    }
  });
});
