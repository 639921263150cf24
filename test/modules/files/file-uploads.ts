import { createHash } from "node:crypto";
import { expect } from "vitest";
import type { TestContext } from "../../helpers/context.ts";

/** The test contexts' public base URL: part and download links on it are served by the app itself. */
export const API_BASE = "http://api.test";

export const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("base64");

export interface OpenedPart {
  number: number;
  chunk_start: number;
  chunk_end: number;
  checksum_sha256_base64: string | null;
  url: string;
  headers: Record<string, string>;
}

export interface OpenedUpload {
  id: string;
  path: string;
  service: string;
  upload: { id: string; path: string; parts: OpenedPart[] };
}

/** Sends a GET or PUT to a link: through the app when it is the app's own, else over HTTP (S3). */
export async function follow(
  ctx: TestContext,
  url: string,
  init: { method: "GET" | "PUT"; body?: Buffer; headers?: Record<string, string> },
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  if (url.startsWith(API_BASE)) {
    const response = await ctx.request({
      method: init.method,
      url: url.slice(API_BASE.length),
      ...(init.body ? { payload: init.body } : {}),
      headers: { ...(init.body ? { "content-type": "application/octet-stream" } : {}), ...init.headers },
    });
    return { status: response.statusCode, headers: response.headers as Record<string, string>, body: response.rawPayload };
  }
  const response = await fetch(url, { method: init.method, body: init.body ?? null, headers: init.headers ?? {}, redirect: "manual" });
  return { status: response.status, headers: Object.fromEntries(response.headers), body: Buffer.from(await response.arrayBuffer()) };
}

/** The body of a POST /v1/files/ cutting `bytes` into parts of `partSize`, with checksums unless told not to. */
export function fileCreateBody(
  bytes: Buffer,
  options: { partSize: number; service?: string; name?: string; mimeType?: string; checksums?: boolean; organizationId?: string },
) {
  const checksums = options.checksums ?? true;
  const parts = [];
  for (let start = 0, number = 1; start < bytes.length; start += options.partSize, number += 1) {
    const end = Math.min(start + options.partSize, bytes.length);
    parts.push({
      number,
      chunk_start: start,
      chunk_end: end,
      checksum_sha256_base64: checksums ? sha256(bytes.subarray(start, end)) : null,
    });
  }
  return {
    service: options.service ?? "downloadable",
    name: options.name ?? "installer.bin",
    mime_type: options.mimeType ?? "application/octet-stream",
    size: bytes.length,
    checksum_sha256_base64: checksums ? sha256(bytes) : null,
    ...(options.organizationId ? { organization_id: options.organizationId } : {}),
    upload: { parts },
  };
}

/** Opens an upload through the API (201 asserted). */
export async function openUpload(ctx: TestContext, token: string, body: object): Promise<OpenedUpload> {
  const response = await ctx.request({ method: "POST", url: "/v1/files/", token, payload: body });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<OpenedUpload>();
}

/** PUTs each part's bytes to its URL with its headers; the parts as `/uploaded` takes them. */
export async function putParts(ctx: TestContext, opened: OpenedUpload, bytes: Buffer, only?: (number: number) => boolean) {
  const uploaded = [];
  for (const part of opened.upload.parts) {
    if (only && !only(part.number)) continue;
    const sent = await follow(ctx, part.url, {
      method: "PUT",
      body: bytes.subarray(part.chunk_start, part.chunk_end),
      headers: part.headers,
    });
    expect(sent.status, sent.body.toString()).toBe(200);
    uploaded.push({ number: part.number, checksum_etag: sent.headers.etag!, checksum_sha256_base64: part.checksum_sha256_base64 });
  }
  return uploaded;
}

export const completeUpload = (ctx: TestContext, token: string, opened: OpenedUpload, parts: object[]) =>
  ctx.request({
    method: "POST",
    url: `/v1/files/${opened.id}/uploaded`,
    token,
    payload: { id: opened.upload.id, path: opened.upload.path, parts },
  });

/** Opens, sends and completes an upload; the completed file. */
export async function uploadFile(ctx: TestContext, token: string, bytes: Buffer, options: Parameters<typeof fileCreateBody>[1]) {
  const opened = await openUpload(ctx, token, fileCreateBody(bytes, options));
  const response = await completeUpload(ctx, token, opened, await putParts(ctx, opened, bytes));
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ id: string; path: string; service: string; is_uploaded: boolean; checksum_etag: string }>();
}
