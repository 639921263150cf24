import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3BlobStore } from "../../../src/adapters/blob-stores/s3-blob-store.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrder, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { pdfText } from "../../helpers/pdf.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { startTestS3, type TestS3 } from "../../helpers/s3.ts";
import { runDocumentJobs } from "./order-documents-helpers.ts";

let s3: TestS3;
let ctx: TestContext;

beforeAll(async () => {
  s3 = await startTestS3("commerce-invoices");
  ctx = await createTestContext({
    env: {
      STORAGE_DRIVER: "s3",
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: "true",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      DOWNLOAD_URL_TTL_SECONDS: "120",
    },
  });
});
afterAll(async () => {
  await ctx.close();
  await s3.stop();
});

describe("invoices stored in S3", () => {
  it("uploads the generated invoice and links to it with a presigned GET valid DOWNLOAD_URL_TTL_SECONDS", async () => {
    const orgId = (await createOrganization(ctx.deps, "Bucket Co")).id;
    const token = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
    const order = await createOrder(ctx.deps, orgId, { amounts: { subtotal: 12_345 } });
    expect((await ctx.request({ method: "POST", url: `/v1/orders/${order.id}/invoice`, token })).statusCode).toBe(202);
    await runDocumentJobs(ctx);

    const link = await ctx.request({ method: "GET", url: `/v1/orders/${order.id}/invoice`, token });
    expect(link.statusCode, link.body).toBe(200);
    expectReferenceResponse("orders:invoice", 200, link.json());
    const url = new URL(link.json<{ url: string }>().url);
    expect(url.origin + url.pathname).toBe(`${s3.endpoint}/${s3.bucket}/invoices/${orgId}/${order.id}.pdf`);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("120");

    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="Invoice-${order.invoice_number}.pdf"`);
    const text = await pdfText(Buffer.from(await response.arrayBuffer()));
    for (const expected of [order.invoice_number!, "Ada Buyer", "$123.45"]) expect(text).toContain(expected);
  });
});

/** The status of a GET for `url`, sent to `server` (host:port) whatever host the URL names. */
const statusVia = (url: URL, server: string) =>
  new Promise<number>((resolve, reject) => {
    const [hostname, port] = server.split(":");
    request({ hostname, port: Number(port), path: url.pathname + url.search, headers: { host: url.host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    })
      .on("error", reject)
      .end();
  });

describe("S3_PUBLIC_ENDPOINT", () => {
  const port = () => new URL(s3.endpoint).port;
  const storeWith = (publicEndpoint: string) =>
    new S3BlobStore({
      bucket: s3.bucket,
      region: "us-east-1",
      endpoint: s3.endpoint,
      publicEndpoint,
      forcePathStyle: true,
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
    });

  it("stores through S3_ENDPOINT even when the public name does not resolve here", async () => {
    const store = storeWith(`http://storage.invalid:${port()}`);
    try {
      await store.put("checks/internal.pdf", Buffer.from("%PDF-1.4 internal"), {
        contentType: "application/pdf",
        filename: "internal.pdf",
      });
      expect(await store.exists("checks/internal.pdf")).toBe(true);
      const url = new URL(await store.downloadUrl("checks/internal.pdf", { filename: "internal.pdf", expiresInSeconds: 60 }));
      expect(url.origin).toBe(`http://storage.invalid:${port()}`);
      // The host is part of what is signed, which is why links are signed for the public name.
      expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("host");
    } finally {
      store.destroy();
    }
  });

  it("signs download links that work under the public name", async () => {
    const publicEndpoint = `http://localhost:${port()}`;
    const store = storeWith(publicEndpoint);
    try {
      await store.put("checks/public.pdf", Buffer.from("%PDF-1.4 public"), { contentType: "application/pdf", filename: "public.pdf" });
      const url = new URL(await store.downloadUrl("checks/public.pdf", { filename: "public.pdf", expiresInSeconds: 60 }));
      expect(url.origin).toBe(publicEndpoint);
      expect(await statusVia(url, new URL(s3.endpoint).host)).toBe(200);
    } finally {
      store.destroy();
    }
  });
});
