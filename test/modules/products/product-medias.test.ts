import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { LOGO_PNG_DATA_URL } from "../../documents/fixtures.ts";
import { API_BASE, fileCreateBody, openUpload, uploadFile } from "../files/file-uploads.ts";

/** A product's medias are the organization's uploaded `product_media` files. */
let ctx: TestContext;
let dataDir: string;
let token: string;
let orgId: string;
const png = Buffer.from(LOGO_PNG_DATA_URL.split(",")[1]!, "base64");

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-product-medias-"));
  ctx = await createTestContext({ env: { DATA_DIR: dataDir, PUBLIC_BASE_URL: API_BASE } });
  orgId = (await createOrganization(ctx.deps)).id;
  token = await createOrganizationToken(ctx.deps, orgId, ["files:write", "products:write", "products:read"]);
});
afterAll(async () => {
  await ctx.close();
  await rm(dataDir, { recursive: true, force: true });
});

const uploadMedia = async (as: string, name: string) =>
  (await uploadFile(ctx, as, png, { partSize: png.length, service: "product_media", name, mimeType: "image/png" })).id;

const createProduct = (medias: unknown) =>
  ctx.request({
    method: "POST",
    url: "/v1/products/",
    token,
    payload: { name: "Boxed", prices: [{ amount_type: "fixed", price_amount: 500 }], medias },
  });

const mediaIds = (body: { medias: { id: string }[] }) => body.medias.map((media) => media.id);

describe("a product's medias", () => {
  it("attaches uploaded files in order on create, reorders and removes them on update, and drops a deleted file", async () => {
    const [front, back] = [await uploadMedia(token, "front.png"), await uploadMedia(token, "back.png")];
    const created = await createProduct([front, back]);
    expect(created.statusCode, created.body).toBe(201);
    expectReferenceResponse("products:create", 201, created.json());
    expect(created.json().medias[0]).toMatchObject({
      id: front,
      name: "front.png",
      mime_type: "image/png",
      size: png.length,
      service: "product_media",
      is_uploaded: true,
      public_url: `${API_BASE}/files/public/${front}`,
    });
    expect(mediaIds(created.json())).toEqual([front, back]);
    const id = created.json<{ id: string }>().id;
    const update = (medias: string[]) => ctx.request({ method: "PATCH", url: `/v1/products/${id}`, token, payload: { medias } });

    const reordered = await update([back, front]);
    expect(reordered.statusCode, reordered.body).toBe(200);
    expect(mediaIds(reordered.json())).toEqual([back, front]);
    const third = await uploadMedia(token, "side.png");
    expect(mediaIds((await update([third, back])).json())).toEqual([third, back]);

    expect((await ctx.request({ method: "DELETE", url: `/v1/files/${third}`, token })).statusCode).toBe(204);
    const read = await ctx.request({ method: "GET", url: `/v1/products/${id}`, token });
    expectReferenceResponse("products:get", 200, read.json());
    expect(mediaIds(read.json())).toEqual([back]);
    // The same file may show on several products.
    expect(mediaIds((await createProduct([back])).json())).toEqual([back]);
  });

  it("refuses, writing nothing, another organization's media, a downloadable, an upload not completed, an unknown id", async () => {
    const otherToken = await createOrganizationToken(ctx.deps, (await createOrganization(ctx.deps)).id, ["files:write"]);
    const foreign = await uploadMedia(otherToken, "foreign.png");
    const downloadable = (await uploadFile(ctx, token, png, { partSize: png.length })).id;
    const pending = (
      await openUpload(ctx, token, fileCreateBody(png, { partSize: png.length, service: "product_media", mimeType: "image/png" }))
    ).id;
    const count = async () => (await ctx.deps.db.selectFrom("products").select("id").where("organization_id", "=", orgId).execute()).length;
    const before = await count();
    for (const [name, media] of [
      ["another organization's media", foreign],
      ["a downloadable file", downloadable],
      ["an upload not completed", pending],
      ["an unknown id", "6f1e2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"],
    ] as const) {
      const refused = await createProduct([media]);
      expect(refused.statusCode, name).toBe(422);
      expect(refused.json().detail).toEqual([
        expect.objectContaining({ loc: ["body", "medias", 0], msg: "Value error, Media file not found.", input: media }),
      ]);
    }
    expect(await count()).toBe(before);
    expect((await createProduct(["not-a-uuid"])).statusCode).toBe(422);
  });
});
