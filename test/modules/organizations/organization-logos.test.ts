import { lookup } from "node:dns/promises";
import http from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import { Logger, runOnce } from "graphile-worker";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_LOGO_BYTES } from "../../../src/documents/logo.ts";
import { renderBillingPdf } from "../../../src/documents/pdf.ts";
import { TaskName } from "../../../src/jobs/task-names.ts";
import { orderBillingDocument } from "../../../src/modules/orders/order-documents.render.ts";
import { findOrderEmbedded } from "../../../src/modules/orders/orders.repository.ts";
import { fetchLogoTask } from "../../../src/modules/organizations/organizations.tasks.ts";
import { addressProblem } from "../../../src/http/outbound-url-policy.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { queuedJobs } from "../../helpers/jobs.ts";
import { createOrder } from "../../helpers/factories.ts";
import { LOGO_PNG_DATA_URL, createOrganizationWithAvatar } from "../../documents/fixtures.ts";

const PNG_BYTES = Buffer.from(LOGO_PNG_DATA_URL.split(",")[1]!, "base64");
// A PNG's signature followed by more bytes than a logo may have.
const HUGE_PNG = Buffer.concat([PNG_BYTES, Buffer.alloc(MAX_LOGO_BYTES)]);

describe("the seller's logo fetched from an http(s) avatar URL", () => {
  let ctx: TestContext;
  let server: http.Server;
  let origin: string;
  const hits: string[] = [];
  // TCP connections accepted: a refused address is never connected to, not even for a TLS handshake.
  let connections = 0;

  beforeAll(async () => {
    // NODE_ENV=test: the policy lets plain http reach loopback (WEBHOOK_ALLOW_INSECURE_LOCALHOST), never private networks.
    ctx = await createTestContext({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" } });
    server = http.createServer((request, response) => {
      hits.push(request.url ?? "");
      const served: Record<string, [string, Buffer]> = {
        "/logo.png": ["image/png", PNG_BYTES],
        "/other.png": ["image/png", PNG_BYTES],
        "/page.html": ["image/png", Buffer.from("<!doctype html><title>not an image</title>")],
        "/huge.png": ["image/png", HUGE_PNG],
      };
      const found = served[request.url ?? ""];
      if (request.url === "/moved.png") {
        response.writeHead(302, { location: "/logo.png" }).end();
      } else if (found) {
        response.writeHead(200, { "content-type": found[0] }).end(found[1]);
      } else {
        response.writeHead(404).end();
      }
    });
    server.on("connection", () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await ctx.close();
  });
  beforeEach(() => {
    hits.length = 0;
    connections = 0;
  });

  const silentLogger = new Logger(() => () => undefined);
  const runLogoJobs = () =>
    runOnce({
      pgPool: ctx.database.pool,
      taskList: { [TaskName.organizationLogoFetch]: fetchLogoTask(ctx.deps) },
      noHandleSignals: true,
      logger: silentLogger,
    });

  const createOrganization = (avatarUrl: string) => createOrganizationWithAvatar(ctx, avatarUrl);

  const invoicePdf = async (organizationId: string): Promise<Buffer> => {
    const order = await createOrder(ctx.deps, organizationId);
    const row = await findOrderEmbedded(ctx.deps.db, order.id, { allowed: null });
    return renderBillingPdf(await orderBillingDocument(ctx.deps.db, row!, "invoice"));
  };
  const hasImage = (pdf: Buffer) => pdf.includes("/Subtype /Image");

  const storedLogo = (organizationId: string) =>
    ctx.deps.db.selectFrom("organization_logos").selectAll().where("organization_id", "=", organizationId).executeTakeFirst();

  const pendingLogoJobs = async (organizationId: string) =>
    (await queuedJobs<{ organizationId?: string }>(ctx.deps.db, { task: TaskName.organizationLogoFetch }))
      .filter((job) => job.payload.organizationId === organizationId)
      .map(({ max_attempts, payload }) => ({ max_attempts, payload }));

  it("enqueues the fetch with the organization, a few attempts at most, and none for a data: URL", async () => {
    const url = `${origin}/logo.png`;
    const id = await createOrganization(url);
    expect(await pendingLogoJobs(id)).toEqual([{ max_attempts: 3, payload: { organizationId: id, url } }]);
    expect(await pendingLogoJobs(await createOrganization(LOGO_PNG_DATA_URL))).toEqual([]);
    await runLogoJobs();
    // Run once and gone; should it stay, the message says whether it ran and failed, or never ran.
    const left = (await queuedJobs(ctx.deps.db, { task: TaskName.organizationLogoFetch })).map(({ attempts, last_error, run_at, now }) => ({
      attempts,
      last_error,
      run_at,
      now,
    }));
    expect(await pendingLogoJobs(id), JSON.stringify(left)).toEqual([]);
  });

  it("stores the PNG served at the avatar URL, and the invoice draws it without fetching anything", async () => {
    const url = `${origin}/logo.png`;
    const id = await createOrganization(url);
    expect(hasImage(await invoicePdf(id))).toBe(false);
    expect(hits).toEqual([]);

    await runLogoJobs();
    expect(hits).toEqual(["/logo.png"]);
    const stored = await storedLogo(id);
    expect(stored?.source_url).toBe(url);
    expect(stored?.content).toEqual(PNG_BYTES);

    hits.length = 0;
    expect(hasImage(await invoicePdf(id))).toBe(true);
    expect(hits).toEqual([]);
  });

  it.each([
    ["an HTML page served as image/png", "/page.html"],
    ["a PNG larger than MAX_LOGO_BYTES", "/huge.png"],
    ["a redirect (not followed)", "/moved.png"],
    ["a 404", "/missing.png"],
  ])("stores nothing for %s, and the invoice has no logo", async (_case, pathname) => {
    const id = await createOrganization(`${origin}${pathname}`);
    await runLogoJobs();
    expect(hits).toEqual([pathname]);
    expect(await storedLogo(id)).toBeUndefined();
    expect(hasImage(await invoicePdf(id))).toBe(false);
    // Given up for good: nothing is left to retry.
    expect(await pendingLogoJobs(id)).toEqual([]);
  });

  it.each([
    ["a private address", "https://10.20.30.40/logo.png"],
    ["a link-local address", "https://169.254.169.254/latest/meta-data"],
    ["plain http off loopback", "http://93.184.216.34/logo.png"],
  ])("refuses %s under the outgoing-request policy: nothing connected to, nothing stored", async (_case, url) => {
    const id = await createOrganization(url);
    await runLogoJobs();
    expect(await storedLogo(id)).toBeUndefined();
    expect(hasImage(await invoicePdf(id))).toBe(false);
    expect(await pendingLogoJobs(id)).toEqual([]);
  });

  it("refuses a host name resolving to this machine once insecure localhost is off: the address is checked on connect", async () => {
    // The machine's own name passes the URL's text check; what it resolves to (loopback, or a
    // container's private address) is refused by the policy when the connection is made.
    const { address } = await lookup(os.hostname());
    expect(addressProblem(address, { allowInsecureLocalhost: false, allowPrivateNetworks: false })).not.toBeNull();
    const strict = await createTestContext({ env: { WEBHOOK_ALLOW_INSECURE_LOCALHOST: "false", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" } });
    try {
      const created = await strict.request({
        method: "POST",
        url: "/v1/organizations/",
        token: strict.ownerToken,
        payload: {
          name: "Strict Shop",
          slug: "strict-shop",
          avatar_url: `https://${os.hostname()}:${(server.address() as AddressInfo).port}/logo.png`,
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      await runOnce({
        pgPool: strict.database.pool,
        taskList: { [TaskName.organizationLogoFetch]: fetchLogoTask(strict.deps) },
        noHandleSignals: true,
        logger: silentLogger,
      });
      expect(connections).toBe(0);
      expect(await strict.deps.db.selectFrom("organization_logos").selectAll().execute()).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it("stops drawing the old logo once the avatar URL changes, and a fetch finishing after the change keeps nothing", async () => {
    const id = await createOrganization(`${origin}/logo.png`);
    await runLogoJobs();
    expect(hasImage(await invoicePdf(id))).toBe(true);

    await ctx.deps.db
      .updateTable("organizations")
      .set({ avatar_url: `${origin}/other.png` })
      .where("id", "=", id)
      .execute();
    expect(hasImage(await invoicePdf(id))).toBe(false);

    // A job for a URL the organization no longer has fetches but stores nothing.
    const late = await createOrganization(`${origin}/logo.png`);
    await ctx.deps.db
      .updateTable("organizations")
      .set({ avatar_url: `${origin}/other.png` })
      .where("id", "=", late)
      .execute();
    hits.length = 0;
    await runLogoJobs();
    expect(hits).toEqual(["/logo.png"]);
    expect(await storedLogo(late)).toBeUndefined();
  });
});
