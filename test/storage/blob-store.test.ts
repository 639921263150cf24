import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalBlobStore } from "../../src/adapters/blob-stores/local-blob-store.ts";
import { S3BlobStore } from "../../src/adapters/blob-stores/s3-blob-store.ts";
import { createTestContext, type TestContext } from "../helpers/context.ts";
import { startTestS3, type TestS3 } from "../helpers/s3.ts";

const pdf = Buffer.from("%PDF-1.4\n% test document\n");

describe("local blob store with signed links", () => {
  let ctx: TestContext;
  let dataDir: string;
  let store: LocalBlobStore;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-blobs-"));
    ctx = await createTestContext({ env: { DATA_DIR: dataDir, PUBLIC_BASE_URL: "http://api.test" } });
    store = new LocalBlobStore(path.join(dataDir, "blobs"), "http://api.test", ctx.deps.secret, ctx.clock.now);
  });
  afterAll(async () => {
    await ctx.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const download = (url: string) => ctx.request({ method: "GET", url: url.replace("http://api.test", "") });

  it("stores a file and serves it through an expiring signed link", async () => {
    await store.put("invoices/org/order-1.pdf", pdf, {
      contentType: "application/pdf",
      filename: "Invoice-1.pdf",
      cacheControl: "private, max-age=60",
    });
    expect(await store.exists("invoices/org/order-1.pdf")).toBe(true);
    expect(await store.exists("invoices/org/missing.pdf")).toBe(false);
    const url = await store.downloadUrl("invoices/org/order-1.pdf", { filename: "Invoice-1.pdf", expiresInSeconds: 600 });
    expect(url).toMatch(/^http:\/\/api\.test\/blobs\/invoices\/org\/order-1\.pdf\?expires=\d+&filename=Invoice-1\.pdf&signature=/);
    const response = await download(url);
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.equals(pdf)).toBe(true);
    expect(response.headers["content-type"]).toBe("application/pdf");
    expect(response.headers["content-disposition"]).toBe('attachment; filename="Invoice-1.pdf"');
    expect(response.headers["cache-control"]).toBe("private, max-age=60");
  });

  it("answers 403 alike for a tampered, re-targeted, expired or unknown link", async () => {
    await store.put("receipts/a.pdf", pdf, { contentType: "application/pdf", filename: "a.pdf" });
    const url = await store.downloadUrl("receipts/a.pdf", { filename: "a.pdf", expiresInSeconds: 60 });
    const tampered = url.replace(/signature=./, (m) => `${m.slice(0, -1)}${m.endsWith("A") ? "B" : "A"}`);
    const otherFile = url.replace("receipts/a.pdf", "receipts/b.pdf");
    const renamed = url.replace("filename=a.pdf", "filename=evil.exe");
    const refusals = [await download(tampered), await download(otherFile), await download(renamed)];
    ctx.clock.advance(61_000);
    refusals.push(await download(url));
    ctx.clock.advance(-61_000);
    for (const response of refusals) {
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ error: "Forbidden", detail: "This download link is invalid or has expired." });
    }
    expect((await download(url)).statusCode).toBe(200);
  });

  it("refuses keys that could leave the storage folder", async () => {
    await expect(store.put("../escape.pdf", pdf, { contentType: "application/pdf", filename: "x.pdf" })).rejects.toThrow(/unsafe/);
    await expect(store.downloadUrl("a/../../etc/passwd", { filename: "x", expiresInSeconds: 1 })).rejects.toThrow(/unsafe/);
  });
});

describe("S3 blob store against an S3-compatible server", () => {
  let s3: TestS3;
  let store: S3BlobStore;
  beforeAll(async () => {
    s3 = await startTestS3();
    store = new S3BlobStore({
      bucket: s3.bucket,
      region: "us-east-1",
      endpoint: s3.endpoint,
      forcePathStyle: true,
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
    });
  });
  afterAll(async () => {
    store.destroy();
    await s3.stop();
  });

  it("stores an object and hands out a presigned download that names the file", async () => {
    await store.put("invoices/org/order-2.pdf", pdf, { contentType: "application/pdf", filename: "Invoice-2.pdf" });
    expect(await store.exists("invoices/org/order-2.pdf")).toBe(true);
    expect(await store.exists("invoices/org/none.pdf")).toBe(false);
    const url = await store.downloadUrl("invoices/org/order-2.pdf", { filename: "Invoice-2.pdf", expiresInSeconds: 600 });
    expect(url).toContain("X-Amz-Signature=");
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(pdf)).toBe(true);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="Invoice-2.pdf"');
  });
});
