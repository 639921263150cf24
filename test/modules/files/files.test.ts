import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable, getRequest, jsonRequest, paginationRefusals, tokenRefusals, type BadInputCase } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import {
  API_BASE,
  completeUpload,
  fileCreateBody,
  follow,
  openUpload,
  putParts,
  sha256,
  uploadFile,
  type OpenedUpload,
} from "./file-uploads.ts";

let ctx: TestContext;
let dataDir: string;
let orgId: string;
let writeToken: string;
let readToken: string;
let benefitsToken: string;
let otherToken: string;
let otherFileId: string;

const installer = randomBytes(70_000);

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-files-"));
  ctx = await createTestContext({ env: { DATA_DIR: dataDir, PUBLIC_BASE_URL: API_BASE } });
  orgId = (await createOrganization(ctx.deps)).id;
  const otherOrgId = (await createOrganization(ctx.deps)).id;
  writeToken = await createOrganizationToken(ctx.deps, orgId, ["files:write"]);
  readToken = await createOrganizationToken(ctx.deps, orgId, ["files:read"]);
  benefitsToken = await createOrganizationToken(ctx.deps, orgId, ["benefits:write"]);
  otherToken = await createOrganizationToken(ctx.deps, otherOrgId, ["files:write"]);
  otherFileId = (await uploadFile(ctx, otherToken, randomBytes(10), { partSize: 10 })).id;
});
afterAll(async () => {
  await ctx.close();
  await rm(dataDir, { recursive: true, force: true });
});

const stored = async (key: string): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of await ctx.services.blobs.read(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};
const fileRow = (id: string) => ctx.deps.db.selectFrom("files").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

describe("uploading a file in parts to the local store", () => {
  it("opens the upload with a signed URL per part, takes the parts and joins them into the exact bytes", async () => {
    const response = await ctx.request({
      method: "POST",
      url: "/v1/files/",
      token: writeToken,
      payload: fileCreateBody(installer, { partSize: 30_000, name: "Setup Tool 1.0.exe", mimeType: "application/x-msdownload" }),
    });
    expect(response.statusCode, response.body).toBe(201);
    const opened = response.json<OpenedUpload & Record<string, unknown>>();
    expectReferenceResponse("files:create", 201, opened);
    expect(opened).toMatchObject({ organization_id: orgId, name: "Setup Tool 1.0.exe", size: 70_000, is_uploaded: false });
    expect(opened.path).toBe(`downloadable/${orgId}/${opened.id}/Setup_Tool_1.0.exe`);
    expect(opened.upload.parts.map((part) => [part.number, part.chunk_start, part.chunk_end])).toEqual([
      [1, 0, 30_000],
      [2, 30_000, 60_000],
      [3, 60_000, 70_000],
    ]);
    for (const part of opened.upload.parts) {
      expect(part.url).toMatch(new RegExp(`^${API_BASE}/blob-parts/[0-9a-f]{32}/${part.number}\\?expires=\\d+&signature=`));
      expect(part.headers).toEqual({ "x-amz-checksum-sha256": part.checksum_sha256_base64, "x-amz-sdk-checksum-algorithm": "SHA256" });
    }
    expect(opened.checksum_sha256_hex).toBe(Buffer.from(sha256(installer), "base64").toString("hex"));

    const parts = await putParts(ctx, opened, installer);
    const completed = await completeUpload(ctx, writeToken, opened, parts);
    expect(completed.statusCode, completed.body).toBe(200);
    expectReferenceResponse("files:uploaded", 200, completed.json());
    expect(completed.json()).toMatchObject({ id: opened.id, service: "downloadable", is_uploaded: true, flagged_malicious_at: null });
    expect(completed.json().checksum_etag).toMatch(/^[0-9a-f]{32}-3$/);
    expect((await stored(opened.path)).equals(installer)).toBe(true);
  });

  it("lists uploaded files only, filtered by id, and changes a name and a version", async () => {
    const opened = await openUpload(ctx, writeToken, fileCreateBody(randomBytes(5), { partSize: 5 }));
    const uploaded = await uploadFile(ctx, writeToken, randomBytes(8), { partSize: 4, name: "v1.zip" });
    const list = await ctx.request({ method: "GET", url: "/v1/files/", token: readToken });
    expect(list.statusCode, list.body).toBe(200);
    expectReferenceResponse("files:list", 200, list.json());
    const ids = list.json<{ items: { id: string }[] }>().items.map((item) => item.id);
    expect(ids).toContain(uploaded.id);
    expect(ids).not.toContain(opened.id);
    expect(ids).not.toContain(otherFileId);
    const filtered = await ctx.request({ method: "GET", url: `/v1/files/?ids=${uploaded.id}`, token: readToken });
    expect(filtered.json()).toMatchObject({ items: [{ id: uploaded.id }], pagination: { total_count: 1, max_page: 1 } });

    const patched = await ctx.request({ method: "PATCH", url: `/v1/files/${uploaded.id}`, token: writeToken, payload: { version: "1.1" } });
    expect(patched.statusCode, patched.body).toBe(200);
    expectReferenceResponse("files:update", 200, patched.json());
    expect(patched.json()).toMatchObject({ name: "v1.zip", version: "1.1" });
    const renamed = await ctx.request({
      method: "PATCH",
      url: `/v1/files/${uploaded.id}`,
      token: writeToken,
      payload: { name: "v2.zip", version: "" },
    });
    expect(renamed.json()).toMatchObject({ name: "v2.zip", version: "1.1" });
  });

  it("deletes a file: gone from the list, its object removed", async () => {
    const uploaded = await uploadFile(ctx, writeToken, randomBytes(8), { partSize: 8 });
    const response = await ctx.request({ method: "DELETE", url: `/v1/files/${uploaded.id}`, token: writeToken });
    expect(response.statusCode, response.body).toBe(204);
    expect(await ctx.services.blobs.exists(uploaded.path)).toBe(false);
    expect((await ctx.request({ method: "DELETE", url: `/v1/files/${uploaded.id}`, token: writeToken })).statusCode).toBe(404);
    const list = await ctx.request({ method: "GET", url: `/v1/files/?ids=${uploaded.id}`, token: readToken });
    expect(list.json().items).toEqual([]);
  });

  it("serves a product media at its public URL", async () => {
    const image = randomBytes(300);
    const media = await uploadFile(ctx, writeToken, image, {
      partSize: 300,
      service: "product_media",
      mimeType: "image/png",
      name: "cover.png",
    });
    expectReferenceResponse("files:uploaded", 200, media);
    const publicUrl = (media as unknown as { public_url: string }).public_url;
    const redirect = await follow(ctx, publicUrl, { method: "GET" });
    expect(redirect.status).toBe(302);
    const download = await follow(ctx, redirect.headers.location!, { method: "GET" });
    expect(download.body.equals(image)).toBe(true);
  });
});

describe("refusing what does not add up", () => {
  const refused = async (response: { statusCode: number; json: () => unknown; body: string }, message: RegExp) => {
    expect(response.statusCode, response.body).toBe(422);
    const detail = (response.json() as { detail: { msg: string }[] }).detail;
    expect(detail.map((entry) => entry.msg).join(" | ")).toMatch(message);
  };

  it("refuses a whole file whose SHA-256 is not the one announced, and removes what was joined", async () => {
    const bytes = randomBytes(20);
    const opened = await openUpload(ctx, writeToken, {
      ...fileCreateBody(bytes, { partSize: 10 }),
      checksum_sha256_base64: sha256(randomBytes(3)),
    });
    await refused(
      await completeUpload(ctx, writeToken, opened, await putParts(ctx, opened, bytes)),
      /SHA-256 is not the checksum_sha256_base64/,
    );
    expect((await fileRow(opened.id)).is_uploaded).toBe(false);
    expect(await ctx.services.blobs.exists(opened.path)).toBe(false);
  });

  it("refuses a part whose bytes are not its checksum, when it is sent and when it is completed", async () => {
    const bytes = randomBytes(20);
    const opened = await openUpload(ctx, writeToken, fileCreateBody(bytes, { partSize: 10 }));
    const [first] = opened.upload.parts;
    const wrong = await follow(ctx, first!.url, { method: "PUT", body: randomBytes(10), headers: first!.headers });
    expect(wrong.status).toBe(400);
    expect(JSON.parse(wrong.body.toString())).toEqual({
      error: "BadDigest",
      detail: "The part's SHA-256 is not the checksum sent with it.",
    });
    const parts = await putParts(ctx, opened, bytes);
    const otherChecksum = parts.map((part) => (part.number === 2 ? { ...part, checksum_sha256_base64: sha256(randomBytes(4)) } : part));
    await refused(await completeUpload(ctx, writeToken, opened, otherChecksum), /Part 2's checksum is not the one announced/);
  });

  it("refuses a part's bytes that differ from its announced checksum even when the PUT carried none", async () => {
    const bytes = randomBytes(20);
    const body = fileCreateBody(bytes, { partSize: 10, checksums: false });
    const opened = await openUpload(ctx, writeToken, { ...body, checksum_sha256_base64: sha256(bytes) });
    const altered = Buffer.concat([bytes.subarray(0, 10), randomBytes(10)]);
    await refused(
      await completeUpload(ctx, writeToken, opened, await putParts(ctx, opened, altered)),
      /SHA-256 is not the checksum_sha256_base64/,
    );
  });

  it("refuses a missing part, a part never sent, a part listed twice and a part not announced", async () => {
    const bytes = randomBytes(30);
    const opened = await openUpload(ctx, writeToken, fileCreateBody(bytes, { partSize: 10 }));
    const parts = await putParts(ctx, opened, bytes, (number) => number !== 3);
    await refused(await completeUpload(ctx, writeToken, opened, parts), /Part 3 was not uploaded\./);
    const unsent = {
      number: 3,
      checksum_etag: '"0123456789abcdef0123456789abcdef"',
      checksum_sha256_base64: opened.upload.parts[2]!.checksum_sha256_base64,
    };
    await refused(await completeUpload(ctx, writeToken, opened, [...parts, unsent]), /Part 3 was not uploaded, or not with the ETag given/);
    await refused(await completeUpload(ctx, writeToken, opened, [...parts, parts[0]!]), /Part 1 is listed twice/);
    await refused(await completeUpload(ctx, writeToken, opened, [...parts, { ...unsent, number: 4 }]), /Part 4 was not announced/);
    // Nothing was lost: once the last part is sent, the upload completes.
    const all = [...parts, ...(await putParts(ctx, opened, bytes, (number) => number === 3))];
    expect((await completeUpload(ctx, writeToken, opened, all)).statusCode).toBe(200);
    await refused(await completeUpload(ctx, writeToken, opened, all), /already uploaded/);
  });
});

describe("bad input", () => {
  const valid = fileCreateBody(randomBytes(10), { partSize: 10 });
  const post = jsonRequest("POST", "/v1/files/", () => writeToken);
  const fileCount = async () => (await ctx.deps.db.selectFrom("files").select("id").execute()).length;
  let before = 0;
  beforeAll(async () => {
    before = await fileCount();
  });
  const media = (overrides: Record<string, unknown>) => ({ ...valid, service: "product_media", mime_type: "image/png", ...overrides });
  const createCases: BadInputCase[] = [
    ...tokenRefusals((as) => post(valid, as), { "a read-only token": () => readToken, "a token of benefits": () => benefitsToken }),
    { name: "no service", request: post({ ...valid, service: undefined }), status: 422 },
    { name: "an unknown service", request: post({ ...valid, service: "support_case_attachment" }), status: 422 },
    { name: "a product media over 10 MiB", request: post(media({ size: 10 * 1024 * 1024 + 1 })), status: 422 },
    { name: "a product media that is no image", request: post(media({ mime_type: "application/pdf" })), status: 422 },
    { name: "an avatar over 1 MiB", request: post(media({ service: "organization_avatar", size: 1024 * 1024 + 1 })), status: 422 },
    { name: "a downloadable over the limit", request: post({ ...valid, size: 10 * 1024 ** 3 + 1 }), status: 422 },
    { name: "a size as text", request: post({ ...valid, size: "10" }), status: 422, loc: ["body", "size"] },
    { name: "an overlong name", request: post({ ...valid, name: "x".repeat(256) }), status: 422 },
    { name: "a checksum that is no SHA-256", request: post({ ...valid, checksum_sha256_base64: "abc" }), status: 422 },
    { name: "no parts", request: post({ ...valid, upload: { parts: [] } }), status: 422 },
    {
      name: "parts that leave a gap",
      request: post({
        ...valid,
        size: 20,
        checksum_sha256_base64: null,
        upload: {
          parts: [
            { number: 1, chunk_start: 0, chunk_end: 5 },
            { number: 2, chunk_start: 6, chunk_end: 20 },
          ],
        },
      }),
      status: 422,
      loc: ["body", "upload", "parts", 1],
    },
    {
      name: "parts short of the size",
      request: post({
        ...valid,
        size: 20,
        checksum_sha256_base64: null,
        upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 10 }] },
      }),
      status: 422,
      loc: ["body", "upload", "parts"],
    },
    {
      name: "a part number twice",
      request: post({
        ...valid,
        upload: {
          parts: [
            { number: 1, chunk_start: 0, chunk_end: 5 },
            { number: 1, chunk_start: 5, chunk_end: 10 },
          ],
        },
      }),
      status: 422,
      loc: ["body", "upload", "parts", 1, "number"],
    },
    {
      name: "another organization's id",
      request: post({ ...valid, organization_id: "3f2b1c4d-1111-4222-8333-123456789abc" }),
      status: 422,
    },
  ];
  describe("POST /v1/files/", () => {
    badInputTable(
      () => ctx.request,
      createCases,
      async () => expect(await fileCount()).toBe(before),
    );
  });

  const completion = { id: "upload", path: "downloadable/x", parts: [{ number: 1, checksum_etag: "e", checksum_sha256_base64: null }] };
  const uploadedOf = (id: string) => jsonRequest("POST", `/v1/files/${id}/uploaded`, () => writeToken);
  describe("POST /v1/files/{id}/uploaded", () => {
    badInputTable(
      () => ctx.request,
      [
        ...tokenRefusals((as) => () => uploadedOf(otherFileId)(completion, as)(), { "a read-only token": () => readToken }),
        { name: "a non-UUID id", request: uploadedOf("nope")(completion), status: 422, loc: ["path", "id"] },
        {
          name: "another organization's file",
          request: () => uploadedOf(otherFileId)(completion)(),
          status: 404,
          error: "ResourceNotFound",
        },
        { name: "no parts", request: uploadedOf(otherFileId)({ ...completion, parts: [] }), status: 422 },
        {
          name: "a part number as text",
          request: uploadedOf(otherFileId)({ ...completion, parts: [{ ...completion.parts[0], number: "one" }] }),
          status: 422,
        },
      ],
    );
  });

  const patchOf = (id: string) => jsonRequest("PATCH", `/v1/files/${id}`, () => writeToken);
  describe("PATCH /v1/files/{id}", () => {
    badInputTable(
      () => ctx.request,
      [
        ...tokenRefusals((as) => () => patchOf(otherFileId)({ name: "x" }, as)(), { "a read-only token": () => readToken }),
        { name: "a non-UUID id", request: patchOf("nope")({ name: "x" }), status: 422, loc: ["path", "id"] },
        {
          name: "another organization's file",
          request: () => patchOf(otherFileId)({ name: "x" })(),
          status: 404,
          error: "ResourceNotFound",
        },
        { name: "an overlong version", request: () => patchOf(otherFileId)({ version: "v".repeat(256) })(), status: 422 },
        { name: "a name as a number", request: () => patchOf(otherFileId)({ name: 3 })(), status: 422 },
      ],
    );
  });

  const remove =
    (id: string, as: () => string | null = () => writeToken) =>
    () => ({ method: "DELETE" as const, url: `/v1/files/${id}`, token: as() });
  describe("DELETE /v1/files/{id}", () => {
    badInputTable(
      () => ctx.request,
      [
        ...tokenRefusals((as) => () => remove(otherFileId, as)(), { "a read-only token": () => readToken }),
        { name: "a non-UUID id", request: remove("nope"), status: 422, loc: ["path", "id"] },
        { name: "another organization's file", request: () => remove(otherFileId)(), status: 404, error: "ResourceNotFound" },
      ],
      async () => expect((await fileRow(otherFileId)).deleted_at).toBeNull(),
    );
  });

  const list = getRequest("/v1/files/", () => readToken);
  describe("GET /v1/files/", () => {
    badInputTable(
      () => ctx.request,
      [
        ...tokenRefusals(list.bind(null, ""), { "a token of benefits": () => benefitsToken }),
        ...paginationRefusals((query) => list(query)),
        { name: "a non-UUID id filter", request: list("?ids=nope"), status: 422 },
        { name: "a non-UUID organization filter", request: list("?organization_id=nope"), status: 422 },
      ],
    );
  });
});
