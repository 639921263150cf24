import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "./helpers/context.ts";
import { perProcessStart, projectRoot, spawnProject, stopSpawned } from "./helpers/process.ts";
import { createOrganization, createOrganizationToken } from "./helpers/factories.ts";
import { queuedJobs } from "./helpers/jobs.ts";
import { TaskName } from "../src/jobs/task-names.ts";
import { licensedProduct, payCheckout } from "./modules/emails/email-helpers.ts";

let ctx: TestContext;
let dataDir: string;
beforeAll(async () => {
  ctx = await createTestContext();
  dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-cli-"));
});
afterEach(stopSpawned);
afterAll(async () => {
  await ctx.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function cli(...args: string[]) {
  const run = spawnProject(["src/cli.ts", ...args], { DATABASE_URL: ctx.database.url, DATA_DIR: dataDir, SECRET_KEY: ctx.deps.secret });
  const code = await run.exited;
  return { code, output: run.output() };
}

// Each test runs the CLI at most twice.
describe("commerce-api CLI", { timeout: perProcessStart(2) }, () => {
  it("creates an organization and a token that the API accepts", async () => {
    const org = await cli("organization", "create", "--name", "Cli Shop", "--json");
    expect(org.code).toBe(0);
    const organization = JSON.parse(org.output.trim().split("\n").pop()!);
    expect(organization).toMatchObject({ name: "Cli Shop", slug: "cli-shop" });

    const created = await cli(
      "token",
      "create",
      "--organization",
      organization.id,
      "--scopes",
      "organizations:read,checkouts:read",
      "--json",
    );
    expect(created.code).toBe(0);
    const { token } = JSON.parse(created.output.trim().split("\n").pop()!);
    const response = await ctx.request({ method: "GET", url: `/v1/organizations/${organization.id}`, token });
    expect(response.statusCode).toBe(200);
  });

  it("seeds a demo whose checkout reads back with its token", async () => {
    const seeded = await cli("seed", "demo", "--json");
    expect(seeded.code).toBe(0);
    const demo = JSON.parse(seeded.output.trim().split("\n").pop()!);
    const response = await ctx.request({ method: "GET", url: `/v1/checkouts/${demo.checkout_id}`, token: demo.token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      product_id: demo.product_id,
      discount_id: demo.discount_id,
      amount: 4900,
      discount_amount: 980,
      // German VAT (19 %) on 39.20, collected through the demo's One-Stop Shop registration.
      tax_amount: 745,
      total_amount: 4665,
      customer_billing_address: expect.objectContaining({ country: "DE" }),
    });
  });

  it("refuses unknown scopes and unknown commands", async () => {
    const bad = await cli("token", "create", "--organization", "3f2b1c4d-1111-4222-8333-123456789abc", "--scopes", "root");
    expect(bad.code).toBe(1);
    expect(bad.output).toContain("unknown scopes: root");
    const unknown = await cli("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain("Usage: commerce-api");
  });

  it("runs from its bin script on this Node (type stripping where Node has it, else tsx)", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["bin/commerce-api.js", "--help"], { cwd: projectRoot });
    expect(stdout).toContain("Usage: commerce-api");
  });
  it("keeps emails without SMTP_URL, never sent, and lists and shows them", async () => {
    const org = await createOrganization(ctx.deps);
    const token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write"]);
    const product = await licensedProduct(ctx, org.id, "Kept Tool");
    const { order } = await payCheckout(ctx, token, product.product.id, { email: "kept@example.com" });
    const email = await ctx.deps.db
      .selectFrom("emails")
      .selectAll()
      .where("dedupe_key", "=", `order_confirmation:${order.id}`)
      .executeTakeFirstOrThrow();
    expect(email).toMatchObject({ status: "kept", recipient: "kept@example.com", subject: "Your Kept Tool order confirmation" });
    expect(await queuedJobs(ctx.deps.db, { task: TaskName.emailSend })).toEqual([]);

    const listed = await cli("emails", "list", "--status", "kept", "--json");
    expect(listed.code, listed.output).toBe(0);
    expect(JSON.parse(listed.output.trim().split("\n").pop()!)).toEqual([
      expect.objectContaining({
        id: email.id,
        status: "kept",
        recipient: "kept@example.com",
        subject: "Your Kept Tool order confirmation",
      }),
    ]);
    const shown = await cli("emails", "show", email.id);
    expect(shown.code, shown.output).toBe(0);
    const key = await ctx.deps.db
      .selectFrom("license_keys")
      .select("key")
      .where("customer_id", "=", order.customer_id)
      .executeTakeFirstOrThrow();
    expect(shown.output).toContain("To: kept@example.com");
    expect(shown.output).toContain("Status: kept");
    expect(shown.output).toContain(key.key);
  });
});
