import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable, getRequest, paginationRefusals, tokenRefusals } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, registerForTax } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { payCheckout } from "../emails/email-helpers.ts";
import { createDownloadables as createDownloadablesOf } from "./downloadable-helpers.ts";
import { API_BASE, follow, uploadFile } from "./file-uploads.ts";

let ctx: TestContext;
let dataDir: string;
let orgId: string;
let sellerToken: string;
let checkoutToken: string;
let readOnlyToken: string;
let otherFileId: string;
let otherBenefitId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-downloadables-"));
  ctx = await createTestContext({ env: { DATA_DIR: dataDir, PUBLIC_BASE_URL: API_BASE } });
  orgId = (await createOrganization(ctx.deps)).id;
  await registerForTax(ctx.deps, orgId);
  sellerToken = await createOrganizationToken(ctx.deps, orgId, ["files:write", "benefits:write", "products:write"]);
  checkoutToken = await createOrganizationToken(ctx.deps, orgId, ["checkouts:write"]);
  readOnlyToken = await createOrganizationToken(ctx.deps, orgId, ["files:read"]);
  const otherOrgId = (await createOrganization(ctx.deps)).id;
  const otherToken = await createOrganizationToken(ctx.deps, otherOrgId, ["files:write", "benefits:write"]);
  otherFileId = (await uploadFile(ctx, otherToken, randomBytes(4), { partSize: 4 })).id;
  otherBenefitId = (await createDownloadables(otherToken, [otherFileId])).json<{ id: string }>().id;
});
afterAll(async () => {
  await ctx.close();
  await rm(dataDir, { recursive: true, force: true });
});

const createDownloadables = (token: string, files: string[], archived: Record<string, boolean> = {}) =>
  createDownloadablesOf(ctx, token, files, { archived });

const portalList = (sessionToken: string, query = "") =>
  ctx.request({ method: "GET", url: `/v1/customer-portal/downloadables/${query}`, token: sessionToken });

interface Listed {
  items: { id: string; benefit_id: string; file: { id: string; name: string; download: { url: string; expires_at: string } } }[];
}

describe("a buyer downloads the installer a seller uploaded", () => {
  let benefitId: string;
  let fileId: string;
  let sessionToken: string;
  const installer = randomBytes(45_000);

  it("grants the file with the order, lists it in the portal and downloads the exact bytes through its link", async () => {
    fileId = (await uploadFile(ctx, sellerToken, installer, { partSize: 16_000, name: "setup.exe" })).id;
    const created = await createDownloadables(sellerToken, [fileId]);
    expect(created.statusCode, created.body).toBe(201);
    expectReferenceResponse("benefits:create", 201, created.json());
    expect(created.json()).toMatchObject({ type: "downloadables", properties: { files: [fileId], archived: {} } });
    benefitId = created.json<{ id: string }>().id;

    const product = await ctx.request({
      method: "POST",
      url: "/v1/products/",
      token: sellerToken,
      payload: { name: "Desktop app", prices: [{ amount_type: "fixed", price_amount: 2_500 }] },
    });
    expect(product.statusCode, product.body).toBe(201);
    const productId = product.json<{ id: string }>().id;
    const attached = await ctx.request({
      method: "POST",
      url: `/v1/products/${productId}/benefits`,
      token: sellerToken,
      payload: { benefits: [benefitId] },
    });
    expect(attached.statusCode, attached.body).toBe(200);

    const paid = await payCheckout(ctx, checkoutToken, productId, { email: "buyer@example.com" });
    sessionToken = paid.sessionToken;
    const grant = await ctx.deps.db
      .selectFrom("benefit_grants")
      .selectAll()
      .where("order_id", "=", paid.order.id)
      .executeTakeFirstOrThrow();
    expect(grant.properties).toEqual({ files: [fileId] });

    const listed = await portalList(sessionToken);
    expect(listed.statusCode, listed.body).toBe(200);
    expectReferenceResponse("customer_portal:downloadables:list", 200, listed.json());
    const [item] = listed.json<Listed>().items;
    expect(item).toMatchObject({ benefit_id: benefitId, file: { id: fileId, name: "setup.exe" } });
    expect(item!.file.download.url).toMatch(new RegExp(`^${API_BASE}/v1/customer-portal/downloadables/`));
    expect(Date.parse(item!.file.download.expires_at) - ctx.clock.now().getTime()).toBeGreaterThan(3_500_000);

    const redirect = await follow(ctx, item!.file.download.url, { method: "GET" });
    expect(redirect.status).toBe(302);
    const download = await follow(ctx, redirect.headers.location!, { method: "GET" });
    expect(download.status).toBe(200);
    expect(download.body.equals(installer)).toBe(true);
    expect(download.headers["content-disposition"]).toBe('attachment; filename="setup.exe"');

    const files = await ctx.request({ method: "GET", url: `/v1/benefits/${benefitId}/files`, token: sellerToken });
    expect(files.statusCode, files.body).toBe(200);
    expectReferenceResponse("benefits:files", 200, files.json());
    expect(files.json()).toMatchObject({ items: [{ id: fileId, downloads: 1, downloaders: 1 }], pagination: { total_count: 1 } });
  });

  it("answers 410 for an expired link and 404 for a tampered one", async () => {
    const [item] = (await portalList(sessionToken)).json<Listed>().items;
    const url = item!.file.download.url;
    const tampered = url.replace(/.$/, (last) => (last === "A" ? "B" : "A"));
    expect((await follow(ctx, tampered, { method: "GET" })).status).toBe(404);
    expect((await follow(ctx, `${API_BASE}/v1/customer-portal/downloadables/nonsense`, { method: "GET" })).status).toBe(404);
    ctx.clock.advance(3_601_000);
    const expired = await follow(ctx, url, { method: "GET" });
    ctx.clock.advance(-3_601_000);
    expect(expired.status).toBe(410);
    expect(JSON.parse(expired.body.toString())).toEqual({ error: "ResourceGone", detail: "This download link has expired." });
  });

  it("takes an archived file back from the grants, and a deleted benefit's files with its grants", async () => {
    const archived = await ctx.request({
      method: "PATCH",
      url: `/v1/benefits/${benefitId}`,
      token: sellerToken,
      payload: { type: "downloadables", properties: { files: [fileId], archived: { [fileId]: true } } },
    });
    expect(archived.statusCode, archived.body).toBe(200);
    expect((await portalList(sessionToken)).json<Listed>().items).toEqual([]);
    const grants = await ctx.deps.db.selectFrom("benefit_grants").select("properties").where("benefit_id", "=", benefitId).execute();
    expect(grants.map((grant) => grant.properties)).toEqual([{ files: [] }]);

    await ctx.request({
      method: "PATCH",
      url: `/v1/benefits/${benefitId}`,
      token: sellerToken,
      payload: { type: "downloadables", properties: { files: [fileId] } },
    });
    expect((await portalList(sessionToken)).json<Listed>().items).toHaveLength(1);
    expect((await ctx.request({ method: "DELETE", url: `/v1/benefits/${benefitId}`, token: sellerToken })).statusCode).toBe(204);
    expect((await portalList(sessionToken)).json<Listed>().items).toEqual([]);
  });

  it("refuses another organization's file with the hosted service's message", async () => {
    const response = await createDownloadables(sellerToken, [otherFileId]);
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([
      { loc: ["body", "properties", "files", 0], msg: "File not found.", type: "value_error", input: otherFileId },
    ]);
  });

  describe("GET /v1/benefits/{id}/files", () => {
    const files = (id: string) => getRequest(`/v1/benefits/${id}/files`, () => sellerToken);
    badInputTable(
      () => ctx.request,
      [
        ...tokenRefusals((as) => files(otherBenefitId)("", as), { "a token of files": () => readOnlyToken }),
        ...paginationRefusals((query) => () => files(benefitId)(query)()),
        { name: "a non-UUID id", request: files("nope")(), status: 422, loc: ["path", "id"] },
        { name: "another organization's benefit", request: () => files(otherBenefitId)()(), status: 404, error: "ResourceNotFound" },
      ],
    );
  });

  describe("GET /v1/customer-portal/downloadables/", () => {
    const list = getRequest("/v1/customer-portal/downloadables/", () => sessionToken);
    badInputTable(
      () => ctx.request,
      [
        { name: "no session", request: list("", () => null), status: 401 },
        { name: "an organization token", request: list("", () => sellerToken), status: 401 },
        ...paginationRefusals((query) => () => list(query)()),
        { name: "a non-UUID benefit filter", request: () => list("?benefit_id=nope")(), status: 422 },
      ],
    );
  });
});
