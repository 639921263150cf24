import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { startTestS3, type TestS3 } from "../../helpers/s3.ts";
import { S3BlobStore } from "../../../src/adapters/blob-stores/s3-blob-store.ts";
import { LOGO_PNG_DATA_URL } from "../../documents/fixtures.ts";
import { API_BASE, completeUpload, fileCreateBody, follow, openUpload, putParts, sha256, uploadFile } from "./file-uploads.ts";

let s3: TestS3;
let ctx: TestContext;
let token: string;

beforeAll(async () => {
  s3 = await startTestS3();
  ctx = await createTestContext({
    env: {
      PUBLIC_BASE_URL: API_BASE,
      STORAGE_DRIVER: "s3",
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: "true",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
    },
  });
  token = await createOrganizationToken(ctx.deps, (await createOrganization(ctx.deps)).id, [
    "files:write",
    "products:write",
    "checkouts:write",
  ]);
});
afterAll(async () => {
  await ctx.close();
  await s3.stop();
});

describe("uploading a file in parts to S3", () => {
  it("hands out presigned UploadPart URLs and completes the multipart upload into the exact bytes", async () => {
    const bytes = randomBytes(50_000);
    const opened = await openUpload(ctx, token, fileCreateBody(bytes, { partSize: 20_000 }));
    expectReferenceResponse("files:create", 201, opened);
    for (const part of opened.upload.parts) {
      expect(part.url).toMatch(new RegExp(`^${s3.endpoint}/${s3.bucket}/downloadable/.*partNumber=${part.number}.*uploadId=`));
      expect(part.headers["x-amz-checksum-sha256"]).toBe(part.checksum_sha256_base64);
    }
    const completed = await completeUpload(ctx, token, opened, await putParts(ctx, opened, bytes));
    expect(completed.statusCode, completed.body).toBe(200);
    expectReferenceResponse("files:uploaded", 200, completed.json());
    expect(completed.json()).toMatchObject({ is_uploaded: true, checksum_sha256_base64: sha256(bytes) });
    const link = await ctx.services.blobs.downloadUrl(opened.path, { filename: "x.bin", expiresInSeconds: 60 });
    expect((await follow(ctx, link, { method: "GET" })).body.equals(bytes)).toBe(true);
  });

  it("refuses a wrong whole-file checksum and a missing part", async () => {
    const bytes = randomBytes(30);
    const opened = await openUpload(ctx, token, {
      ...fileCreateBody(bytes, { partSize: 10 }),
      checksum_sha256_base64: sha256(randomBytes(2)),
    });
    const parts = await putParts(ctx, opened, bytes);
    const missing = await completeUpload(ctx, token, opened, parts.slice(0, 2));
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0].msg).toBe("Part 3 was not uploaded.");
    const wrong = await completeUpload(ctx, token, opened, parts);
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().detail[0].msg).toMatch(/SHA-256 is not the checksum_sha256_base64/);
    expect(await ctx.services.blobs.exists(opened.path)).toBe(false);
  });
});

describe("a product media stored in S3 on the checkout page", () => {
  it("is allowed by the page's img-src: the public URL's origin and the bucket's it redirects to", async () => {
    const png = Buffer.from(LOGO_PNG_DATA_URL.split(",")[1]!, "base64");
    const media = await uploadFile(ctx, token, png, {
      partSize: png.length,
      service: "product_media",
      name: "box.png",
      mimeType: "image/png",
    });
    const product = await ctx.request({
      method: "POST",
      url: "/v1/products/",
      token,
      payload: { name: "Boxed", prices: [{ amount_type: "fixed", price_amount: 500 }], medias: [media.id] },
    });
    expect(product.statusCode, product.body).toBe(201);
    const checkout = await ctx.request({ method: "POST", url: "/v1/checkouts/", token, payload: { products: [product.json().id] } });
    expect(checkout.statusCode, checkout.body).toBe(201);
    const page = await ctx.request({ method: "GET", url: new URL(checkout.json<{ url: string }>().url).pathname });
    const imgSrc = String(page.headers["content-security-policy"])
      .split("; ")
      .find((directive) => directive.startsWith("img-src "))!
      .split(" ")
      .slice(1);
    const publicUrl = product.json<{ medias: { public_url: string }[] }>().medias[0]!.public_url;
    const stored = (await follow(ctx, publicUrl, { method: "GET" })).headers.location!;
    expect(imgSrc).toEqual(["'self'", "data:", new URL(publicUrl).origin, new URL(stored).origin]);
    const image = await follow(ctx, stored, { method: "GET" });
    expect(image.body.equals(png)).toBe(true);
  });

  it("names a virtual-hosted bucket's host as the SDK signs it", async () => {
    const store = new S3BlobStore({
      bucket: "media",
      region: "eu-west-1",
      forcePathStyle: false,
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: "secret",
    });
    expect(await store.downloadOrigin()).toBe("https://media.s3.eu-west-1.amazonaws.com");
  });
});
