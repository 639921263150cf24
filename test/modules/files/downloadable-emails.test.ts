import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, registerForTax } from "../../helpers/factories.ts";
import { startMailingContext, stopMailingContext, type TestSmtpServer } from "../../helpers/smtp-server.ts";
import { payCheckout, runEmailJobs } from "../emails/email-helpers.ts";
import { productWithFiles as productWithFilesOf } from "./downloadable-helpers.ts";
import { API_BASE, follow, uploadFile } from "./file-uploads.ts";

/** The installer a buyer paid for, in the order's email and on the checkout's page after the payment. */
let ctx: TestContext;
let smtp: TestSmtpServer;
let dataDir: string;
let sellerToken: string;
let checkoutToken: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-downloadable-emails-"));
  ({ ctx, smtp } = await startMailingContext({ DATA_DIR: dataDir, PUBLIC_BASE_URL: API_BASE }));
  const orgId = (await createOrganization(ctx.deps)).id;
  await registerForTax(ctx.deps, orgId);
  sellerToken = await createOrganizationToken(ctx.deps, orgId, ["files:write", "benefits:write", "products:write"]);
  checkoutToken = await createOrganizationToken(ctx.deps, orgId, ["checkouts:write"]);
});
afterAll(async () => {
  await stopMailingContext({ ctx, smtp });
  await rm(dataDir, { recursive: true, force: true });
});

const receivedBy = (address: string) =>
  smtp.received.filter((mail) => mail.to && !Array.isArray(mail.to) && mail.to.value[0]?.address === address);

/** A product granting a downloadables benefit of these files (a name to escape); its id and the benefit's. */
const productWithFiles = (fileIds: string[]) => productWithFilesOf(ctx, sellerToken, fileIds, "Installers <for macOS & Windows>");

const downloadLinks = (html: string) =>
  [...html.matchAll(/href="([^"]*\/downloads\/[^"]*)"/g)].map((match) => match[1]!.replaceAll("&amp;", "&"));

describe("the order's email and page list the files bought, each with a link that outlives the portal's hour", () => {
  const mac = randomBytes(12_345);
  const windows = randomBytes(2_000_000);
  let links: string[];
  let checkoutSecret: string;
  let benefitId: string;
  let fileIds: string[];

  it("emails each file's name, size and link; the link downloads the exact bytes days later and counts the download", async () => {
    fileIds = [
      (await uploadFile(ctx, sellerToken, mac, { partSize: 12_345, name: "App <mac>.dmg" })).id,
      (await uploadFile(ctx, sellerToken, windows, { partSize: 1_000_000, name: "App Setup.exe" })).id,
    ];
    const product = await productWithFiles(fileIds);
    benefitId = product.benefitId;
    const { order } = await payCheckout(ctx, checkoutToken, product.productId, { email: "installer@example.com" });
    checkoutSecret = (
      await ctx.deps.db.selectFrom("checkouts").select("client_secret").where("id", "=", order.checkout_id!).executeTakeFirstOrThrow()
    ).client_secret;

    await runEmailJobs(ctx);
    const [mail] = receivedBy("installer@example.com");
    if (!mail) throw new Error("no confirmation received");
    const html = String(mail.html);
    expect(html).toContain("Installers &lt;for macOS &amp; Windows&gt;");
    expect(html).toContain("App &lt;mac&gt;.dmg</a>");
    expect(html).not.toContain("App <mac>");
    expect(html).toContain("(12.3 kB)");
    expect(html).toContain("App Setup.exe</a>");
    expect(html).toContain("(2.0 MB)");
    links = downloadLinks(html);
    expect(links).toHaveLength(2);
    for (const link of links) expect(link).toMatch(new RegExp(`^${API_BASE}/downloads/[0-9a-f-]{36}\\.[A-Za-z0-9_-]+$`));
    expect(mail.text).toContain(`App <mac>.dmg (12.3 kB):\n    ${links[0]}`);
    expect(mail.text).toContain(`App Setup.exe (2.0 MB):\n    ${links[1]}`);

    // A week later, past any portal link's hour: the email's link still works, with no session.
    ctx.clock.advance(7 * 24 * 3_600_000);
    try {
      for (const [index, bytes] of [mac, windows].entries()) {
        const redirect = await follow(ctx, links[index]!, { method: "GET" });
        expect(redirect.status).toBe(302);
        expect(redirect.headers["cache-control"]).toBe("private, no-store");
        const download = await follow(ctx, redirect.headers.location!, { method: "GET" });
        expect(download.status).toBe(200);
        expect(download.body.equals(bytes)).toBe(true);
      }
    } finally {
      ctx.clock.advance(-7 * 24 * 3_600_000);
    }
    const files = await ctx.request({ method: "GET", url: `/v1/benefits/${benefitId}/files`, token: sellerToken });
    expect(files.json<{ items: { downloads: number }[] }>().items.map((file) => file.downloads)).toEqual([1, 1]);
  });

  it("shows the same files and links on the checkout's page after the payment", async () => {
    const page = await ctx.request({ method: "GET", url: `/checkout/${checkoutSecret}/confirmation` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("<h1>Thank you!</h1>");
    expect(page.body).toContain("App &lt;mac&gt;.dmg</a>");
    expect(page.body).toContain('<span class="hint">(12.3 kB)</span>');
    expect(page.body).toContain('<span class="hint">(2.0 MB)</span>');
    expect(downloadLinks(page.body)).toEqual(links);
  });

  it("refuses a tampered or unsigned link (404), and a file no longer granted (410), counting nothing", async () => {
    const tampered = links[0]!.replace(/.$/, (last) => (last === "A" ? "B" : "A"));
    for (const url of [tampered, `${API_BASE}/downloads/nonsense`, `${API_BASE}/downloads/${fileIds[0]}.${"A".repeat(43)}`]) {
      const refused = await follow(ctx, url, { method: "GET" });
      expect(refused.status, url).toBe(404);
      expect(JSON.parse(refused.body.toString())).toMatchObject({ error: "ResourceNotFound" });
    }
    // The seller archives the Windows installer: the benefit no longer gives it, so its email link ends.
    const archived = await ctx.request({
      method: "PATCH",
      url: `/v1/benefits/${benefitId}`,
      token: sellerToken,
      payload: { type: "downloadables", properties: { files: fileIds, archived: { [fileIds[1]!]: true } } },
    });
    expect(archived.statusCode, archived.body).toBe(200);
    const gone = await follow(ctx, links[1]!, { method: "GET" });
    expect(gone.status).toBe(410);
    expect(JSON.parse(gone.body.toString())).toEqual({ error: "ResourceGone", detail: "This download link has expired." });
    expect((await follow(ctx, links[0]!, { method: "GET" })).status).toBe(302);
    const files = await ctx.request({ method: "GET", url: `/v1/benefits/${benefitId}/files`, token: sellerToken });
    expect(files.json<{ items: { id: string; downloads: number }[] }>().items).toEqual([
      expect.objectContaining({ id: fileIds[0], downloads: 2 }),
    ]);
  });
});
