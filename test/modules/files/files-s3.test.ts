import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { startTestS3, type TestS3 } from "../../helpers/s3.ts";
import { API_BASE, completeUpload, fileCreateBody, follow, openUpload, putParts, sha256 } from "./file-uploads.ts";

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
  token = await createOrganizationToken(ctx.deps, (await createOrganization(ctx.deps)).id, ["files:write"]);
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
