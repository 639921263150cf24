import type { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import {
  assertSafeKey,
  partChecksumHeaders,
  UploadNotFound,
  UploadPartMissing,
  type BlobStore,
  type CompletedObject,
  type StoredObject,
  type UploadedPart,
} from "./blob-store.ts";

export interface S3Options {
  bucket: string;
  region: string;
  endpoint?: string | undefined;
  /** Where the links' users reach the service, when that differs from `endpoint`. */
  publicEndpoint?: string | undefined;
  forcePathStyle: boolean;
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
}

/** S3 answered 404: no such object, or (aborting) no such upload. */
const isNotFound = (error: unknown): boolean => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

/** S3 or any S3-compatible service; downloads are presigned GETs. */
export class S3BlobStore implements BlobStore {
  private readonly options: S3Options;
  private readonly client: S3Client;
  /** Signs download links; it never sends a request. */
  private readonly signer: S3Client;
  private origin: Promise<string> | undefined;

  constructor(options: S3Options) {
    this.options = options;
    const clientFor = (endpoint: string | undefined) =>
      new S3Client({
        region: options.region,
        endpoint,
        forcePathStyle: options.forcePathStyle,
        credentials:
          options.accessKeyId && options.secretAccessKey
            ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
            : undefined,
      });
    this.client = clientFor(options.endpoint);
    // A presigned URL's signature covers its host, so links are signed for the host their users
    // reach (a container network name such as `storage:9000` means nothing to a browser).
    this.signer = options.publicEndpoint ? clientFor(options.publicEndpoint) : this.client;
  }

  async put(key: string, body: Buffer, meta: StoredObject): Promise<void> {
    assertSafeKey(key);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        Body: body,
        ContentType: meta.contentType,
        CacheControl: meta.cacheControl,
        ContentDisposition: contentDisposition(meta.filename),
      }),
    );
  }

  async exists(key: string): Promise<boolean> {
    assertSafeKey(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /**
   * `put` is one PutObject, which leaves nothing behind when cut off; an incomplete multipart
   * upload in the bucket (a writer killed mid-upload) keeps its parts, billed, until aborted.
   * Needs `s3:ListBucketMultipartUploads` and `s3:AbortMultipartUpload`.
   */
  async removeAbandonedWrites(startedBefore: Date): Promise<number> {
    let removed = 0;
    let page: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const listed = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.options.bucket, ...page }));
      for (const { Key, UploadId, Initiated } of listed.Uploads ?? []) {
        if (!Key || !UploadId || !Initiated || Initiated >= startedBefore) continue;
        try {
          await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.options.bucket, Key, UploadId }));
          removed += 1;
        } catch (error) {
          // Another process starting at the same time aborted it first.
          if (!isNotFound(error)) throw error;
        }
      }
      if (!listed.IsTruncated) return removed;
      page = { KeyMarker: listed.NextKeyMarker, UploadIdMarker: listed.NextUploadIdMarker };
    }
  }

  async downloadUrl(key: string, options: { filename: string; expiresInSeconds: number }): Promise<string> {
    assertSafeKey(key);
    const command = new GetObjectCommand({
      Bucket: this.options.bucket,
      Key: key,
      ResponseContentDisposition: contentDisposition(options.filename),
    });
    return getSignedUrl(this.signer, command, { expiresIn: options.expiresInSeconds });
  }

  /**
   * Signs a link (no request is sent) and keeps its origin: the SDK alone knows the host its links
   * use (virtual-hosted or path-style, the region's endpoint, a dotted bucket's fallback).
   */
  async downloadOrigin(): Promise<string> {
    const command = new GetObjectCommand({ Bucket: this.options.bucket, Key: "origin" });
    this.origin ??= getSignedUrl(this.signer, command, { expiresIn: 60 }).then((url) => new URL(url).origin);
    return this.origin;
  }

  async read(key: string): Promise<Readable> {
    assertSafeKey(key);
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
    return object.Body as Readable;
  }

  async remove(key: string): Promise<void> {
    assertSafeKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
  }

  async startMultipartUpload(key: string, meta: StoredObject): Promise<string> {
    assertSafeKey(key);
    const started = await this.client.send(
      new CreateMultipartUploadCommand({
        Bucket: this.options.bucket,
        Key: key,
        ContentType: meta.contentType,
        CacheControl: meta.cacheControl,
        ContentDisposition: contentDisposition(meta.filename),
      }),
    );
    if (!started.UploadId) throw new Error("S3 opened a multipart upload without an id");
    return started.UploadId;
  }

  /** A presigned UploadPart; with a checksum, S3 itself refuses a part whose SHA-256 differs. */
  async partUploadUrl(
    key: string,
    uploadId: string,
    part: { number: number; checksumSha256Base64: string | null; expiresInSeconds: number },
  ): Promise<{ url: string; headers: Record<string, string> }> {
    assertSafeKey(key);
    const command = new UploadPartCommand({
      Bucket: this.options.bucket,
      Key: key,
      UploadId: uploadId,
      PartNumber: part.number,
      ...(part.checksumSha256Base64 === null ? {} : { ChecksumSHA256: part.checksumSha256Base64 }),
    });
    const headers = partChecksumHeaders(part.checksumSha256Base64);
    const url = await getSignedUrl(this.signer, command, {
      expiresIn: part.expiresInSeconds,
      signableHeaders: new Set(Object.keys(headers)),
    });
    return { url, headers };
  }

  async completeMultipartUpload(key: string, uploadId: string, parts: readonly UploadedPart[]): Promise<CompletedObject> {
    assertSafeKey(key);
    try {
      const completed = await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.options.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: {
            Parts: [...parts].sort((a, b) => a.number - b.number).map((part) => ({ PartNumber: part.number, ETag: part.etag })),
          },
        }),
      );
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return {
        etag: (completed.ETag ?? head.ETag ?? "").replace(/"/g, ""),
        lastModified: head.LastModified ?? new Date(0),
        version: completed.VersionId ?? head.VersionId ?? null,
      };
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === "NoSuchUpload") throw new UploadNotFound();
      if (name === "InvalidPart" || name === "InvalidPartOrder") throw new UploadPartMissing(null);
      throw error;
    }
  }

  destroy(): void {
    this.client.destroy();
    this.signer.destroy();
  }
}

export const contentDisposition = (filename: string): string => `attachment; filename="${filename.replace(/["\\\r\n]/g, "_")}"`;
